// The exit-code table of docs/exit-codes.md and the error-code list of docs/frames.md, derived from
// the table in codes.ts alone. test/gen-docs.ts writes them between the markers below;
// test/unit/error-codes.test.ts fails when either file is stale.

import { withGeneratedBlock } from "../util/generated-block.ts";
import { ERROR_CODES, ERROR_CODE_NAMES, type ErrorCode } from "./codes.ts";

export const EXIT_CODES_BEGIN = "<!-- BEGIN GENERATED exit-codes -->";
export const EXIT_CODES_END = "<!-- END GENERATED exit-codes -->";
export const FRAME_CODES_BEGIN = "<!-- BEGIN GENERATED error-codes -->";
const FRAME_CODES_END = "<!-- END GENERATED error-codes -->";

/** numeric exits in ascending order, the script's own last; table order within one exit */
function byExit(): ErrorCode[] {
  const rank = (c: ErrorCode) => {
    const exit = ERROR_CODES[c].exit;
    return exit === "script" ? Number.MAX_SAFE_INTEGER : exit;
  };
  return [...ERROR_CODE_NAMES].sort((a, b) => rank(a) - rank(b));
}

/** one row per error code: the exit code, the code, the frame's error.code, when it happens */
function exitCodesMarkdown(): string {
  const rows = byExit().map((c) => {
    const d = ERROR_CODES[c];
    return [exitCell(c), `\`${c}\``, d.frame === null ? "—" : `\`${d.frame}\``, d.doc];
  });
  const head = ["exit", "error code", "frame `error.code`", "when"];
  return table([head, head.map(() => "---"), ...rows]);
}

/** one row per table entry that reaches a frame, grouped by the frame's error.code (in table order) */
function frameCodesMarkdown(): string {
  const framed = ERROR_CODE_NAMES.filter((c) => ERROR_CODES[c].frame !== null);
  const frames = [...new Set(framed.map((c) => ERROR_CODES[c].frame))];
  const rows = frames.flatMap((f) => framed.filter((c) => ERROR_CODES[c].frame === f).map((c) => [`\`${f}\``, exitCell(c), ERROR_CODES[c].doc]));
  const head = ["`error.code`", "exit", "when"];
  return table([head, head.map(() => "---"), ...rows]);
}

export function withGeneratedExitCodes(doc: string): string {
  return withGeneratedBlock(doc, EXIT_CODES_BEGIN, EXIT_CODES_END, exitCodesMarkdown());
}

export function withGeneratedFrameCodes(doc: string): string {
  return withGeneratedBlock(doc, FRAME_CODES_BEGIN, FRAME_CODES_END, frameCodesMarkdown());
}

function exitCell(c: ErrorCode): string {
  const exit = ERROR_CODES[c].exit;
  return exit === "script" ? "N, 128+n" : String(exit);
}

/** markdown rows; a pipe in a cell would end the cell and a newline the row */
function table(rows: string[][]): string {
  return rows.map((r) => `| ${r.map((text) => text.replace(/\|/g, "\\|").replace(/\n/g, " ")).join(" | ")} |`).join("\n") + "\n";
}
