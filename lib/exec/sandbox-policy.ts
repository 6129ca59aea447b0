// A serving process's sandbox settings, read once per run from its session: exec.sandbox with its
// origin, exec.sandboxAllow parsed, exec.autoInstall. The decisions themselves are in sandbox.ts.

import type { Session } from "../session/session.ts";
import { SettingsError, type Sourced } from "../settings/resolve.ts";
import { decideSandbox, parseSandboxAllow, type Door, type SandboxAllow, type SandboxMode, type SandboxPolicy } from "../runtime/sandbox-args.ts";

/** what execute() needs to sandbox a run (ExecContext.sandbox) */
export interface SandboxContext {
  policy: SandboxPolicy;
  allow: SandboxAllow;
  autoInstall: boolean;
}

export function sandboxContext(session: Pick<Session, "settings" | "get">, door: Door): SandboxContext {
  const s = session.settings.get("exec.sandbox")!;
  let allow: SandboxAllow;
  try {
    allow = parseSandboxAllow((session.settings.get("exec.sandboxAllow")!.items ?? []) as Sourced[]);
  } catch (err) {
    throw new SettingsError((err as Error).message);
  }
  return { policy: { setting: s.value as SandboxMode, origin: s.origin, door }, allow, autoInstall: session.get("exec.autoInstall") };
}

/**
 * What `mcpx serve` and the daemon (which mounts /mcp) say on stderr at start when mcpx_exec would run
 * code unsandboxed; undefined when it is sandboxed. Also checks exec.sandboxAllow, so a bad one stops
 * the server at start rather than failing every run.
 */
export function unsandboxedWarning(session: Pick<Session, "settings" | "get">, who: string): string | undefined {
  const ctx = sandboxContext(session, "mcp");
  const d = decideSandbox(undefined, ctx.policy);
  if (d.ok && d.on) return undefined;
  return (
    `${who}: exec.sandbox is ${ctx.policy.setting} (${ctx.policy.origin}): mcpx_exec runs the ` +
    `code any MCP client sends UNSANDBOXED, with this user's files, network, processes and ` +
    `environment (docs/security.md)`
  );
}
