// What a --remote run sends beyond the ExecOptions a local run builds: the caller's own script-point
// hooks (a local run has them in force through its engine; a remote one carries them along, where
// the daemon applies them as per-run hooks). They are validated here exactly as a local run would
// (a bad hook is a usage error before anything is sent) and made independent of the caller's
// directories: relative run/module paths become absolute, and derived names are kept.

import { hooksFromSetting } from "../hooks/build-gate.ts";
import type { Session } from "../session/session.ts";
import type { Sourced } from "../settings/resolve.ts";

export function remoteScriptHooks(session: Session): Array<Record<string, unknown>> {
  const items = (session.settings.get("hooks")!.items ?? []) as Sourced[];
  const hooks = hooksFromSetting(items, session.cwd, session.env);
  const out: Array<Record<string, unknown>> = [];
  hooks.forEach((hook, i) => {
    if (hook.on !== "script" || hook.phase === "observe") return;
    const raw: Record<string, unknown> = { ...(items[i]!.value as Record<string, unknown>), name: hook.name };
    if (hook.action.kind === "run") raw.run = hook.action.argv;
    if (hook.action.kind === "module") raw.module = hook.action.path;
    out.push(raw);
  });
  return out;
}
