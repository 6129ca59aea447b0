// A module hook that reads the payload mcpx writes to its stdin and answers with advice naming the
// point, the phase and the called tool, so a test can see the payload arrived.
import { readFileSync } from "node:fs";

export default function () {
  const payload = JSON.parse(readFileSync(0, "utf8")) as { point: string; phase: string; call?: { server: string; tool: string } };
  return { advise: `module saw ${payload.point}.${payload.phase} ${payload.call?.server}.${payload.call?.tool}` };
}
