// A phase that does not parse would break the whole generated launcher with an error pointing into a
// cache file; checking each phase on its own first names the phase instead, before anything runs:
// the phase line the parser stopped at, where that line came from (lib/exec/phase-origins.ts), and
// the parser's complaint, never the template's own code (`Expected "finally"`).

import { phaseBlock, type PhaseLine } from "../../launcher/template.ts";
import { SCRIPT_PHASES, type ScriptPhase } from "../settings/registry.ts";
import { phaseLines, type PhaseOrigins } from "./phase-origins.ts";

let transpiler: InstanceType<typeof Bun.Transpiler> | undefined;

/** undefined when every phase parses; otherwise a message naming the phase, its line and origin, and the parser's complaint */
export function checkPhases(phases: Partial<Record<ScriptPhase, string[]>>, origins?: Partial<PhaseOrigins>): string | undefined {
  transpiler ??= new Bun.Transpiler({ loader: "ts" });
  const all = phaseLines(phases, origins);
  for (const phase of SCRIPT_PHASES) {
    const lines = all[phase];
    if (lines.length === 0) continue;
    // the same block, in a module, that the template puts it in: top-level await is allowed, and a
    // stray brace or a `return` is refused here just as the launcher would refuse it
    const err = parseError(`{\n${phaseBlock(phase, lines)}\n}\nexport {};`);
    if (!err) continue;
    const hint = /\bimport\s+[\w{*]|\bimport\s*["']/.test(lines.map((l) => l.source).join("\n"))
      ? ' (a phase cannot hold a static import: use `await import("…")`)'
      : "";
    const own = bare(lines);
    const at = lineAt(lines, own?.line);
    return `script.${phase} line ${at.index + 1}, from ${lines[at.index]!.origin}, does not parse as TypeScript: ${complaint(phase, own, at)}${hint}`;
  }
  return undefined;
}

interface ParseError {
  message: string;
  line?: number;
  column?: number;
}

function parseError(code: string): ParseError | undefined {
  try {
    transpiler!.transformSync(code);
    return undefined;
  } catch (err) {
    // Bun throws a BuildMessage for one error, an AggregateError of them for several: the first is where it stopped
    const e = err as {
      message?: string;
      position?: { line?: number; column?: number };
      errors?: Array<{ message?: string; position?: { line?: number; column?: number } }>;
    };
    const first = e.errors?.[0] ?? e;
    return { message: (first.message ?? String(err)).split("\n")[0]!, line: first.position?.line, column: first.position?.column };
  }
}

/** the parser's error on the phase's own lines, without the template around them (its positions are the lines') */
function bare(lines: readonly PhaseLine[]): ParseError | undefined {
  // no block around them: a stray "}" is then found on its own line, not at the block's end
  return parseError(`${lines.map((l) => l.source).join("\n")}\nexport {};`);
}

/** what the parser said of the phase's own lines, and where among them (the last line when it ran past the phase's end) */
function complaint(phase: ScriptPhase, e: ParseError | undefined, at: ReturnType<typeof lineAt>): string {
  // parsed alone but not inside the template: the lines close the template's own block and reopen one
  if (!e) return `its lines close the block the phase runs in (a stray "}"): each phase must be complete on its own`;
  if (at.past) return `${e.message} after its last line: a block, bracket or string it opens is not closed in script.${phase}`;
  const row = at.row > 1 ? ` on row ${at.row} of that line` : "";
  return `${e.message} at column ${e.column ?? 0}${row}`;
}

/** which phase line holds line `codeLine` of bare()'s code; past: beyond the last one */
function lineAt(lines: readonly PhaseLine[], codeLine: number | undefined): { index: number; row: number; past: boolean } {
  let first = 1;
  for (let i = 0; i < lines.length; i++) {
    const rows = lines[i]!.source.split("\n").length;
    if (codeLine !== undefined && codeLine >= first && codeLine < first + rows) return { index: i, row: codeLine - first + 1, past: false };
    first += rows;
  }
  return { index: lines.length - 1, row: 1, past: true };
}
