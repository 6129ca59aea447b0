// The generated part of docs/hooks.md, derived from the points table, the hook-tool bindings and
// the MCPX_HOOK_* table alone, so the docs cannot describe a point, a phase, a key or a variable
// that does not exist. test/gen-docs.ts writes it between the markers; test/unit/hooks-docs.test.ts
// fails when the file is stale.

import { HOOK_ENV } from "./hook-env.ts";
import { HOOK_TOOL_BINDINGS } from "./mcp-hook-tools.ts";
import { LEVELS, OUTPUT_KEYS, phaseCeiling, phasesOf, phaseSpec, POINT_NAMES, POINTS, type OutputKey } from "./points.ts";

export const HOOKS_BEGIN = "<!-- BEGIN GENERATED hooks -->";
export const HOOKS_END = "<!-- END GENERATED hooks -->";

/** what a key does when a phase lists it but the table has no point-specific words for it */
const KEY_DEFAULT: Record<OutputKey, string> = {
  advise: "attaches a note (stderr, and the hook frame's advice)",
  ask: "asks where someone can answer (a TTY); refuses where nobody can",
  refuse: "refuses",
  propose: "reports a replacement value, not used",
  apply: "replaces the value; the hook frame carries the original",
  run: "acts again, within hooks.retryBudget",
};

export function hooksMarkdown(): string {
  const out: string[] = [];
  out.push("### Points", "");
  for (const point of POINT_NAMES) {
    const spec = POINTS[point];
    out.push(`#### \`${point}\``, "");
    const filters = spec.filters.length ? `\`when\` may filter by ${spec.filters.map(code).join(", ")}.` : "It takes no `when` filters.";
    out.push(`Fires on ${spec.fires}. Phases: ${phasesOf(point).map(code).join(", ")}. ${filters}`, "");
    out.push(row(["phase", "receives (besides point, phase, runId)", "output keys that act", "what they do"]), row(["---", "---", "---", "---"]));
    for (const phase of phasesOf(point)) {
      const ps = phaseSpec(point, phase)!;
      const does = ps.keys.map((k) => `${code(k)}: ${ps.effects[k] ?? KEY_DEFAULT[k]}`).join("; ");
      out.push(row([code(phase), ps.receives, ps.keys.map(code).join(", "), does]));
    }
    out.push("");
  }
  out.push("### The dial", "");
  out.push(
    `Levels, least to most: ${LEVELS.map(code)
      .join(" < ")
      .replace(`${code("ask")} < ${code("refuse")}`, `${code("ask")} / ${code("refuse")} (one rung)`)}. Output keys: ${OUTPUT_KEYS.map(code).join(", ")}.`,
    "",
  );
  out.push(row(["phase", "ceiling"]), row(["---", "---"]));
  for (const phase of ["before", "onSuccess", "onError", "suffix", "observe"] as const) out.push(row([code(phase), code(phaseCeiling(phase))]));
  out.push("");
  out.push("### MCP hook tools", "");
  out.push(row(["tool", "point", "phase", "after the event"]), row(["---", "---", "---", "---"]));
  for (const b of HOOK_TOOL_BINDINGS) out.push(row([code(b.tool), code(b.point), code(b.phase), b.event]));
  out.push("");
  out.push("### Variables", "");
  out.push(row(["variable", "value"]), row(["---", "---"]));
  for (const v of HOOK_ENV) out.push(row([code(v.name), v.description]));
  return out.join("\n") + "\n";
}

/** the document with its generated part replaced; throws when the markers are missing or out of order */
export function withGeneratedHooks(doc: string): string {
  const begin = doc.indexOf(HOOKS_BEGIN);
  const end = doc.indexOf(HOOKS_END);
  if (begin < 0 || end < begin) {
    throw new Error(`the document needs the lines ${HOOKS_BEGIN} and ${HOOKS_END}, in that order, around the generated part`);
  }
  return doc.slice(0, begin + HOOKS_BEGIN.length) + "\n" + hooksMarkdown() + doc.slice(end);
}

function row(cells: string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, "\\|").replace(/\n/g, " ")).join(" | ")} |`;
}

function code(text: string): string {
  return "`" + text + "`";
}
