// Claude Code compatibility for `run` hooks that declare "compat": "claude-code": the call point
// speaks Claude Code's hook protocol, so an existing PreToolUse guard script works unchanged on
// every MCP call mcpx makes (the thing Claude Code users say never fires for MCP tools).
//
// Field names and semantics follow Claude Code's "Hooks reference" (https://code.claude.com/docs/en/hooks):
//   input  — common fields session_id, transcript_path, cwd, hook_event_name; PreToolUse adds
//            tool_name and tool_input; PostToolUse adds tool_response; PostToolUseFailure adds
//            error (a string). MCP tools are named mcp__<server>__<tool>.
//   exit   — 0: stdout is parsed as JSON when it is JSON; 2: a blocking error, stderr is the
//            reason; any other code: a non-blocking error.
//   output — hookSpecificOutput.permissionDecision allow | deny | ask (| defer) with
//            permissionDecisionReason, hookSpecificOutput.updatedInput (PreToolUse);
//            top-level decision "block" with reason (PostToolUse; deprecated "approve"/"block" on
//            PreToolUse); hookSpecificOutput.additionalContext; top-level systemMessage, and
//            continue: false with stopReason; hookSpecificOutput.updatedMCPToolOutput replaces an
//            MCP tool's output at PostToolUse.
// Checked against the reference's published history (spybara.com/anthropic/claude-code/history,
// 2026-01/02 diffs of hooks.md and hooks-guide.md) and the PostToolUseFailure input as mirrored at
// hawacode.com/en/docs/hooks-post-tool-use-failure.html.

import type { HookPayload } from "./hook.ts";
import type { HookOutput } from "./output.ts";
import type { Phase } from "./points.ts";

const CLAUDE_CODE_EVENTS = { before: "PreToolUse", onSuccess: "PostToolUse", onError: "PostToolUseFailure" } as const;
type ClaudeCodeEvent = (typeof CLAUDE_CODE_EVENTS)[keyof typeof CLAUDE_CODE_EVENTS];

export interface ClaudeCodeInput {
  session_id: string;
  hook_event_name: ClaudeCodeEvent;
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response?: unknown;
  error?: string;
  cwd: string;
  /** mcpx keeps no transcript; present and empty so scripts that read it do not crash */
  transcript_path: "";
}

function claudeCodeEvent(point: string, phase: Phase): ClaudeCodeEvent | undefined {
  return point === "call" ? (CLAUDE_CODE_EVENTS as Partial<Record<Phase, ClaudeCodeEvent>>)[phase] : undefined;
}

/** Claude Code's name for an MCP tool */
function claudeCodeToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/**
 * The session_id of a call outside any run (`mcpx call`, `mcpx_call`): Claude Code always sends one,
 * and a script that keys state on it must get a string, the same for every call of this process
 */
const PROCESS_SESSION = crypto.randomUUID();

/** The stdin of a claude-code compat hook; undefined where Claude Code has no matching event (every point but call). */
export function toClaudeCodeInput(
  point: string,
  phase: Phase,
  payload: Pick<HookPayload, "runId" | "call" | "result" | "error">,
  cwd: string,
): ClaudeCodeInput | undefined {
  const event = claudeCodeEvent(point, phase);
  if (!event || !payload.call) return undefined;
  const input: ClaudeCodeInput = {
    session_id: payload.runId ?? PROCESS_SESSION,
    hook_event_name: event,
    tool_name: claudeCodeToolName(payload.call.server, payload.call.tool),
    tool_input: payload.call.arguments ?? {},
    cwd,
    transcript_path: "",
  };
  if (event === "PostToolUse") input.tool_response = payload.result;
  if (event === "PostToolUseFailure") input.error = errorText(payload.error);
  return input;
}

/**
 * A claude-code compat hook's answer as a dial object, or a hook failure. At onError the call has
 * already failed and its error propagates anyway, so a Claude Code block there (exit 2, decision
 * "block", continue: false) becomes advice carrying its reason — as in Claude Code, where it is
 * only shown to the model — instead of a refusal the dial would have to drop.
 */
export function fromClaudeCodeOutput(phase: Phase, exitCode: number, stdout: string, stderr: string): HookOutput {
  const settle = (blocks: string[], notes: string[], rest: Record<string, unknown> = {}): HookOutput => {
    const value: Record<string, unknown> = { ...rest };
    const advice = phase === "onError" ? [...blocks, ...notes] : [...blocks.slice(1), ...notes];
    if (phase !== "onError" && blocks.length) value.refuse = blocks[0];
    if (advice.length) value.advise = advice.join("\n");
    return { ok: true, value };
  };
  if (exitCode === 2) return settle([stderr.trim() || "blocked by hook"], []);
  if (exitCode !== 0) {
    const err = stderr.trim();
    return { ok: false, reason: `exit ${exitCode}${err ? `: ${err}` : ""}` };
  }
  const text = stdout.trim();
  if (text === "") return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // Claude Code shows plain stdout to the user; here it is a note
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return settle([], [text]);
  const out = parsed as Record<string, unknown>;
  const expected = claudeCodeEvent("call", phase);

  const hso = out.hookSpecificOutput;
  if (hso !== undefined && (typeof hso !== "object" || hso === null || Array.isArray(hso))) {
    return { ok: false, reason: "hookSpecificOutput is not an object" };
  }
  const specific = (hso ?? {}) as Record<string, unknown>;
  if (specific.hookEventName !== undefined && specific.hookEventName !== expected) {
    return { ok: false, reason: `hookSpecificOutput.hookEventName is ${JSON.stringify(specific.hookEventName)}, expected "${expected}"` };
  }

  const blocks: string[] = [];
  const notes: string[] = [];
  const rest: Record<string, unknown> = {};
  const reasonOf = (x: unknown, fallback: string) => (typeof x === "string" && x.trim() !== "" ? x : fallback);
  switch (specific.permissionDecision) {
    case undefined:
    case "allow":
    case "defer": // Claude Code: carry on with the normal flow
      break;
    case "deny":
      blocks.push(reasonOf(specific.permissionDecisionReason, "denied by hook"));
      break;
    case "ask":
      rest.ask = reasonOf(specific.permissionDecisionReason, "the hook asks for confirmation");
      break;
    default:
      return { ok: false, reason: `unknown permissionDecision ${JSON.stringify(specific.permissionDecision)}: Claude Code accepts allow, deny, ask, defer` };
  }

  switch (out.decision) {
    case undefined:
    case "approve": // the deprecated PreToolUse spelling of allow
      break;
    case "block":
      blocks.push(reasonOf(out.reason, "blocked by hook"));
      break;
    default:
      return { ok: false, reason: `unknown decision ${JSON.stringify(out.decision)}: Claude Code accepts "block" (or the deprecated "approve")` };
  }

  if (out.continue === false) blocks.push(reasonOf(out.stopReason, "stopped by hook"));

  // updatedInput only means something before the call; Claude Code ignores it elsewhere too
  if (phase === "before" && specific.updatedInput !== undefined) rest.apply = specific.updatedInput;
  if (phase === "onSuccess" && specific.updatedMCPToolOutput !== undefined) rest.apply = specific.updatedMCPToolOutput;

  for (const note of [specific.additionalContext, out.systemMessage]) {
    if (typeof note === "string" && note.trim() !== "") notes.push(note);
  }
  // two reasons for one refusal (deny and block) are one refusal; the second is kept as a note
  return settle([...new Set(blocks)], notes, rest);
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
  return error === undefined ? "" : JSON.stringify(error);
}
