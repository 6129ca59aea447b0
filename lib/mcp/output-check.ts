// The SDK callTool's checks of a tool's answer, kept where mcpx sends the call itself: a tool with
// an outputSchema must return structuredContent that matches it. The schema is compiled when the
// tool is first called, not when the list arrives (most of a long list's cost went there), and kept
// until the list changes. A tool the server marks taskSupport "required" is called as a task
// (task-call.ts) and its check is never kept: a kept null would send its next call down the lean path.

import { sdkError } from "./call-failure.ts";
import { outputValidator, type Connection, type OutputCheck } from "./connection.ts";
import type { CallResult } from "./tool.ts";

/** the tool's outputSchema check (null: it has none), compiled at its first call and kept while its list is current */
export async function outputCheck(conn: Connection, tool: string): Promise<OutputCheck | null> {
  const known = conn.outputChecks.get(tool);
  if (known !== undefined) return known;
  const listing = conn.tools;
  const t = listing ? (await listing).find((x) => x.name === tool) : undefined;
  let check: OutputCheck | null = null;
  if (t?.outputSchema) {
    check = outputValidator(await import("@modelcontextprotocol/sdk/validation/ajv")).getValidator(t.outputSchema as never) as OutputCheck;
  }
  // only a catalogue that is still current may be cached (a list_changed clears both)
  const task = (t as { execution?: { taskSupport?: unknown } } | undefined)?.execution?.taskSupport === "required";
  if (listing && conn.tools === listing && !task) conn.outputChecks.set(tool, check);
  return check;
}

/** the SDK callTool's two checks of a tool with an outputSchema: structuredContent is there (unless isError), and matches */
export async function checkOutput(tool: string, result: CallResult, check: OutputCheck): Promise<void> {
  if (!result.structuredContent && !result.isError)
    throw await sdkError("InvalidRequest", `Tool ${tool} has an output schema but did not return structured content`);
  if (!result.structuredContent) return;
  let verdict: ReturnType<OutputCheck>;
  try {
    verdict = check(result.structuredContent);
  } catch (err) {
    throw await sdkError("InvalidParams", `Failed to validate structured content: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!verdict.valid) throw await sdkError("InvalidParams", `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
}
