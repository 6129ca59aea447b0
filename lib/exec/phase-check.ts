// A phase that does not parse would break the whole generated launcher with an error pointing into a
// cache file; checking each phase on its own first names the phase instead, before anything runs.

import { phaseBlock } from "../../launcher/template.ts";
import { SCRIPT_PHASES, type ScriptPhase } from "../settings/registry.ts";

let transpiler: InstanceType<typeof Bun.Transpiler> | undefined;

/** undefined when every phase parses; otherwise a message naming the phase and the parser's complaint */
export function checkPhases(phases: Partial<Record<ScriptPhase, string[]>>): string | undefined {
  transpiler ??= new Bun.Transpiler({ loader: "ts" });
  for (const phase of SCRIPT_PHASES) {
    const lines = phases[phase] ?? [];
    if (lines.length === 0) continue;
    // the same block, in a module, that the template puts it in: top-level await is allowed, and a
    // stray brace or a `return` is refused here just as the launcher would refuse it
    const code = `{\n${phaseBlock(
      phase,
      lines.map((source) => ({ source, origin: "" })),
    )}\n}\nexport {};`;
    try {
      transpiler.transformSync(code);
    } catch (err) {
      const hint = /\bimport\s+[\w{*]|\bimport\s*["']/.test(lines.join("\n")) ? ' (a phase cannot hold a static import: use `await import("…")`)' : "";
      return `script.${phase} does not parse as TypeScript: ${firstLine(err)}${hint}`;
    }
  }
  return undefined;
}

function firstLine(err: unknown): string {
  const e = err as { message?: string; errors?: Array<{ message?: string }> };
  return (e.errors?.[0]?.message ?? e.message ?? String(err)).split("\n")[0]!;
}
