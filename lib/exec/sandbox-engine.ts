// Which engine one sandboxed run goes to (exec.sandboxEngine, decision 0023), and what the embedded
// QuickJS cannot honour: it has no file system, network or environment, so a grant of those
// (exec.sandboxAllow) is an error naming the way out, never dropped. A run's own variables it does
// honour: they are its process.env, and nothing else is.

import type { RuntimeName, SandboxEngine } from "../settings/choices.ts";
import type { SandboxContext } from "./door-policy.ts";

export type EngineDecision = { ok: true; engine: SandboxEngine } | { ok: false; message: string };

/** asking for Deno by name (--runtime deno) is asking for Deno's sandbox, as is exec.sandboxEngine deno */
export function sandboxOnDeno(runtime: string | undefined, engine: string | undefined): boolean {
  return runtime === "deno" || engine === "deno";
}

export function sandboxEngine(runtime: RuntimeName, ctx: Pick<SandboxContext, "allow" | "engine">): EngineDecision {
  if (sandboxOnDeno(runtime, ctx.engine.value)) return { ok: true, engine: "deno" };
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
