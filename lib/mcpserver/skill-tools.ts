// The skills of skills.ts as served tools: each skill_NAME runs its file as mcpx_exec runs agent code
// (the served door's sandbox, limits, phases and gate), its default export called with the tool's
// arguments object, and answers as mcpx_exec does.

import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { withServerDefaults } from "../exec/server-defaults.ts";
import { checkArgs } from "../mcp/check-args.ts";
import type { Tool } from "../mcp/tool.ts";
import { isPlainObject } from "../util/json-type.ts";
import { runForAgent } from "./agent-run.ts";
import { listSkills, SKILL_PREFIX, type Skill } from "./skills.ts";
import type { ServedTool, ServeDeps, ToolCall } from "./tools.ts";

/** the skills offered to one connection now, as served tools (read again at each listing and call) */
export function skillTools(deps: ServeDeps, reported: Set<string>): ServedTool[] {
  return listSkills(deps.session, reported).map((s) => asTool(s));
}

/** a skill's listing entry: its own JSON Schema, as written, is the tool's input schema */
export function skillListing(t: ServedTool & { inputSchema?: Record<string, unknown> }): McpTool {
  return { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as McpTool["inputSchema"] };
}

function asTool(skill: Skill): ServedTool & { inputSchema: Record<string, unknown> } {
  return {
    name: SKILL_PREFIX + skill.name,
    title: `Skill ${skill.name}`,
    description: skill.description,
    // the SDK lists inputSchema; this schema is only the shape handlers.ts needs of a ServedTool
    schema: undefined as never,
    inputSchema: skill.input,
    runsScript: true,
    handle: (args, call) => runSkill(skill, args, call),
  };
}

async function runSkill(skill: Skill, args: unknown, call: ToolCall): Promise<CallToolResult> {
  if (!isPlainObject(args)) return { content: [{ type: "text", text: `${SKILL_PREFIX}${skill.name} takes an object of arguments` }], isError: true };
  // the skill's own input schema, checked as an upstream tool's is before it is called
  try {
    await checkArgs("skill", { name: skill.name, inputSchema: skill.input } as Tool, args);
  } catch (e) {
    // checkArgs speaks of an upstream tool (and `mcpx types`); a skill's schema is its tools/list entry
    const why = (e as Error).message.replace(/^skill\.\S+ refuses these arguments: /, "").replace(/ \(mcpx types [^)]*\)$/, "");
    return {
      content: [{ type: "text", text: `${SKILL_PREFIX}${skill.name} refuses these arguments: ${why} (its input schema is in tools/list)` }],
      isError: true,
    };
  }
  const { session } = call.deps;
  const raw = { file: skill.path, name: skill.name, export: "default" };
  const opts = withServerDefaults(
    raw,
    { ...raw, args: [], script: session.phases(), hooks: [], runtime: "auto", env: {}, settings: {}, timeoutMs: 0 },
    session,
  );
  // the default export is called with the arguments object itself (a named export gets args spread)
  opts.args = [args as unknown as string];
  const { envelope, answer } = await runForAgent(opts, call, { output: "text" });
  return { content: answer.content, ...(answer.structured ? { structuredContent: answer.structured } : {}), isError: !envelope.ok };
}
