// --remote for `mcpx run` / `mcpx exec`. Loaded only for a remote run (script-command.ts): it needs
// no engine, and loading one would be most of its start-up.

import { join } from "node:path";
import type { ExecOptions } from "../lib/exec/options-schema.ts";
import { renderFrames, type RenderOptions } from "../lib/render/frames-to-cli.ts";
import { abortOnSignals } from "../lib/process/interruption.ts";
import type { Session } from "../lib/session/session.ts";
import { sessionAddress } from "../lib/daemon/address.ts";
import { streamWithDaemon } from "../lib/daemon/on-demand.ts";
import { daemonGet, postExec } from "../lib/daemon/client.ts";
import { withLocalArtifacts } from "../lib/exec/remote-artifacts.ts";
import { refuseStayingFlags, remoteRunSettings, remoteHooks } from "../lib/exec/remote.ts";

// --remote: the same ExecOptions, plus what a local run has in force through its engine (the
// config's script hooks) and where it runs (cwd), posted to the daemon; its frames are rendered by
// the same renderFrames, so stdout, stderr, the envelope and the exit code match a local run; each
// artifact is fetched into this cache first, so its uri is a local file:// URL as a local run's is
// (and --artifacts DIR copies it from there).
/** @param handOverSignals the early runtime's signal handling, when one was started (script-command.ts), let go once this handles them */
export async function runRemote(
  opts: ExecOptions,
  session: Session,
  kind: "run" | "exec",
  render: RenderOptions,
  handOverSignals?: () => void,
): Promise<number> {
  refuseStayingFlags(session, kind);
  const address = sessionAddress(session);
  const remote: ExecOptions = { ...opts, cwd: session.cwd, hooks: remoteHooks(session), settings: remoteRunSettings(session) };
  const signals = abortOnSignals();
  handOverSignals?.();
  try {
    const token = session.get("daemon.token");
    const frames = withLocalArtifacts(
      streamWithDaemon(session, address, () => postExec(address, token, remote, signals.signal)),
      (path) => daemonGet(address, token, path, signals.signal),
      join(session.cacheDir, "artifacts"),
      (message) => session.log("warn", message),
    );
    return await renderFrames(frames, render);
  } finally {
    signals.stop();
  }
}
