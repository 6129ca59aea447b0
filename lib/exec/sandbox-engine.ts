// Which engine one sandboxed run goes to (exec.sandboxEngine, decision 0023), and what the embedded
// QuickJS cannot honour: it has no file system, network or environment, so a grant of those
// (exec.sandboxAllow) is an error naming the way out, never dropped. A run's own variables it does
// honour: they are its process.env, and nothing else is.

import type { RuntimeName, SandboxEngine } from "../settings/choices.ts";
import type { SandboxContext } from "./door-policy.ts";

export type EngineDecision = { ok: true; engine: SandboxEngine } | { ok: false; message: string };

export function sandboxEngine(runtime: RuntimeName, ctx: Pick<SandboxContext, "allow" | "engine">): EngineDecision {
  // asking for Deno by name is asking for Deno's sandbox
  if (runtime === "deno" || ctx.engine.value === "deno") return { ok: true, engine: "deno" };
  const where = `exec.sandboxEngine is quickjs (${ctx.engine.origin})`;
  const toDeno = "set exec.sandboxEngine deno (--sandbox-engine deno, MCPX_EXEC_SANDBOX_ENGINE=deno) to run on Deno's permissions instead";
  const { read, write, net, env: names } = ctx.allow;
  if (read.length + write.length + net.length + names.length > 0) {
    return {
      ok: false,
      message:
        `exec.sandboxAllow grants Deno permissions, but ${where}, which has no file system, network or environment to grant: ` +
        `${toDeno}, or leave exec.sandboxAllow empty`,
    };
  }
  return { ok: true, engine: "quickjs" };
}
