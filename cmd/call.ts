// mcpx call NS.tool '{json}': one tools/call, through the same name resolution a script uses.

import { defineCommand } from "citty";
import { loadUnwrap } from "../lib/exec/launcher-files.ts";
import { callByName, errorText } from "../lib/mcp/tool-call.ts";
import { out } from "../lib/render/write.ts";
import { UsageError, parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openSession } from "../lib/session/session.ts";
import { cittyArgs } from "./help.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "Print the raw MCP result as JSON" },
};

export default defineCommand({
  meta: { name: "call", description: "Call one tool: mcpx call SERVER.TOOL '{\"arg\": 1}'. Prints the unwrapped result; a tool error exits 1." },
  args: cittyArgs("call", OWN, { name: "target", description: "SERVER.TOOL" }, { name: "args", description: "JSON object of arguments" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("call", rawArgs, OWN);
    const [target, json, ...extra] = parsed.positionals;
    if (!target || extra.length > 0) throw new UsageError("usage: mcpx call SERVER.TOOL ['{\"json\": \"args\"}']");
    const dot = target.indexOf(".");
    if (dot <= 0 || dot === target.length - 1) throw new UsageError(`"${target}" is not SERVER.TOOL (e.g. everything.echo)`);
    const args = parseArgsJson(json);
    const session = openSession({ cwd: process.cwd(), env: process.env, configFlag: parsed.own.config as string | undefined, flags: parsed.settings });
    const pool = await session.pool();
    try {
      const { result } = await callByName(pool, target.slice(0, dot), target.slice(dot + 1), args);
      if (parsed.own.json) out(JSON.stringify(result, null, 2) + "\n");
      else {
        const value = result.isError ? undefined : (await loadUnwrap(session.cacheDir))(result);
        if (value !== undefined) out(typeof value === "string" ? (value.endsWith("\n") ? value : value + "\n") : JSON.stringify(value, null, 2) + "\n");
      }
      if (result.isError) {
        session.log("error", `${target} failed: ${errorText(result)}`);
        process.exitCode = 1;
      }
    } catch (e) {
      session.log("error", (e as Error).message);
      process.exitCode = 1;
    } finally {
      await pool.close();
    }
  },
});

function parseArgsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`the arguments are not valid JSON (${(e as Error).message}): give an object like '{"message": "hi"}'`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError("the arguments must be a JSON object, like '{\"message\": \"hi\"}'");
  return v as Record<string, unknown>;
}
