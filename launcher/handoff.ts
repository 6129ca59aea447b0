// The run this runtime was handed (fd 3, read once and emptied: decision 0007), the host runtime's
// services (sys.ts) and the ordered stream on fd 1 that frames are written to. Everything else the
// launcher does reads the run from here, so this module is evaluated first.

import { g } from "./globals.ts";
import { stringify, safeJson } from "./serialize.ts";
import { hostGone, type Sys } from "./sys.ts";
import { bunSys } from "./sys-bun.ts";
import { denoSys } from "./sys-deno.ts";
import { nodeSys } from "./sys-node.ts";
import { installQuickjsProcess, quickjsSys, takeQuickjsHost } from "./sys-quickjs.ts";
import { decodeHandoff, RS, type LauncherMessage } from "./wire.ts";

// the QuickJS sandbox has no process: the launcher's own view of one stands in, seen by nobody else
export const proc = (g.process ?? { env: {} }) as { env: Record<string, string | undefined>; exitCode?: number; argv?: string[] };
// a child the script starts (such as mcpx itself) must not be bun
try {
  delete proc.env.BUN_BE_BUN;
} catch {
  // a sandboxed Deno has no env permission (lib/runtime/sandbox-args.ts); BUN_BE_BUN is never set there
}

const quickjsHost = takeQuickjsHost();

async function detectSys(): Promise<Sys> {
  if (quickjsHost) return quickjsSys(quickjsHost);
  if (g.Bun) return await bunSys();
  if (g.Deno) return denoSys();
  return nodeSys();
}

export const sys = await detectSys();
export const writeOut = sys.write;
export const info = decodeHandoff(await sys.takeHandoff());
// a sandboxed run's own variables: set now that the runtime has started (it may read exactly these)
if (quickjsHost) installQuickjsProcess(quickjsHost, info.env ?? {});
else
  for (const [name, value] of Object.entries(info.env ?? {})) {
    if (g.Deno) g.Deno.env.set(name, value);
    else proc.env[name] = value;
  }

/**
 * The run's launcher, for a runtime started before its run (lib/runtime/ready-runtime.ts): its entry
 * imports the runtime, which waits here for the handoff, then imports this. process.argv[1] becomes the launcher, as it is for
 * a runtime started with its run.
 */
export function handedLauncher(): string {
  if (!info.launcher) throw new Error("mcpx runtime: the run handed over names no launcher; this file is only run by mcpx");
  const argv = proc.argv;
  if (argv && argv.length > 1) argv[1] = info.launcher.path;
  return info.launcher.url;
}

// ── the host: when it is gone (SIGKILL, a crash), nobody reads our output or ends our group ──

/**
 * How often the launcher checks that its host still lives. process.ppid is read afresh on every
 * access on Bun, Deno 2 and Node (measured), and changes to 1 (or a subreaper) when the host dies.
 * No runtime here offers a parent-death signal without FFI, so this is the portable watchdog.
 */
const HOST_WATCH_MS = 250;

function watchHost(host: number): void {
  const p = g.process as { ppid: number };
  const timer = setInterval(() => p.ppid !== host && hostGone(), HOST_WATCH_MS);
  // unref'd: the watchdog must never keep a finished script alive
  if (typeof timer === "number") g.Deno?.unrefTimer?.(timer);
  else (timer as { unref?: () => void }).unref?.();
}
// the QuickJS sandbox runs inside its host, and goes with it
if (!quickjsHost) watchHost(info.host);

/** one frame on the ordered stream: RS, the run's nonce, the message's JSON */
export function frame(body: LauncherMessage): void {
  writeOut(RS + info.nonce + safeJson(body) + "\n");
}

/**
 * A call frame, byte for byte what frame() writes for { t: "call", id, server, tool, args }, with only
 * the arguments given to safeJson: the frame around them is known to be plain JSON, and looking it over
 * again for every call is most of what safeJson costs a small call.
 */
export function callFrame(id: number, server: string, tool: string, args: unknown): void {
  const json = safeJson(args ?? {});
  // undefined: JSON has no text for the arguments (a symbol, a toJSON giving undefined), so the key is left out, as stringify leaves it
  const tail = json === undefined ? "}\n" : `,"args":${json}}\n`;
  writeOut(`${RS}${info.nonce}{"t":"call","id":${id},"server":${stringify(server)},"tool":${stringify(tool)}${tail}`);
}
