import { scriptCommand } from "./script-command.ts";

export default scriptCommand("run");
