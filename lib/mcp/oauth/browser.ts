// Opening the authorization URL for `mcpx auth`: $BROWSER when set, else the desktop's opener
// (xdg-open with a display, open on macOS). Never a failure: the URL is always printed as well, so a
// machine with no browser (ssh, a container) logs in by pasting it elsewhere and letting the redirect
// come back to this machine's loopback port.

import { platform } from "node:os";

/**
 * How long `mcpx auth` waits for the opener to exit before leaving it be: xdg-open and open return at
 * once, but an opener that starts a new browser may stay until that browser quits, which must not
 * hold the login up.
 */
const OPENER_EXIT_GRACE_MS = 1000;

export interface Opened {
  /** the program that was started, for the message */
  program: string;
  /** settles when it has exited, or OPENER_EXIT_GRACE_MS after the call */
  settle(): Promise<void>;
  /** its exit code, once it has exited: not 0 means it could not open the URL */
  exited: Promise<number>;
}

/**
 * The argv that opens `url`, or undefined when there is nothing to open it with. BROWSER is one
 * command, split on spaces (no shell): `%s` in it stands for the URL, else the URL is appended.
 */
function openerArgv(url: string, env: Record<string, string | undefined>, which: (cmd: string) => string | null): string[] | undefined {
  const browser = env.BROWSER?.trim();
  if (browser) {
    const words = browser.split(/\s+/);
    return words.some((w) => w.includes("%s")) ? words.map((w) => w.replaceAll("%s", url)) : [...words, url];
  }
  if (platform() === "darwin") return which("open") ? ["open", url] : undefined;
  // without a display, xdg-open falls back to a text browser in this very terminal
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  const xdg = which("xdg-open");
  return xdg ? [xdg, url] : undefined;
}

/** starts the opener, if there is one; a failure to start is reported as undefined, never thrown */
export function openBrowser(url: string, env: Record<string, string | undefined>): Opened | undefined {
  const argv = openerArgv(url, env, (cmd) => Bun.which(cmd, { PATH: env.PATH ?? "" }));
  if (!argv) return undefined;
  // what the opener inherits: mcpx's own variables stay with mcpx (decision 0002's rule for servers)
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !k.startsWith("MCPX_") && k !== "BUN_BE_BUN") childEnv[k] = v;
  try {
    const proc = Bun.spawn(argv, { env: childEnv, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    proc.unref();
    const settle = () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      return Promise.race([proc.exited.then(() => {}), new Promise<void>((r) => (timer = setTimeout(r, OPENER_EXIT_GRACE_MS)))]).finally(() =>
        clearTimeout(timer),
      );
    };
    return { program: argv[0]!, settle, exited: proc.exited };
  } catch {
    return undefined;
  }
}
