// A Claude Code PreToolUse guard in the JSON style, written for Claude Code and used here unchanged:
// it reads the hook input on stdin and denies any MCP delete tool with permissionDecision "deny".
// Everything else gets no output, which Claude Code reads as "carry on".
import { readFileSync } from "node:fs";

const input = JSON.parse(readFileSync(0, "utf8")) as { hook_event_name?: string; tool_name?: string; tool_input?: Record<string, unknown> };

if (input.hook_event_name === "PreToolUse" && /^mcp__.+__delete_/.test(input.tool_name ?? "")) {
  console.log(
    JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: `Deletes are disabled in this project (${input.tool_name} ${JSON.stringify(input.tool_input)})`,
      },
    }),
  );
}
process.exit(0);
