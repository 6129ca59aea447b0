// A status line on stderr while slow work goes on (a server starting: a first `npx` run sits silent
// for seconds; a tool reporting notifications/progress): a terminal only, never a pipe or a file, so
// scripts that read mcpx's stderr see exactly what they saw before. consola, which mcpx already
// ships, has no spinner, so this is the small one: one line, redrawn in place, taken down around every
// other write (lib/util/fd-write.ts) and when the work ends.

import { fstatSync, statSync, writeSync } from "node:fs";
import { setTransientLine } from "./fd-write.ts";

// straight to fd 2: these writes are the line itself, which every other write steps around
const raw = (text: string) => {
  try {
    writeSync(2, text);
  } catch {
    // a terminal that went away has no line to draw
  }
};

/** quiet work shows nothing: a server that starts within this long never draws the line (change freely) */
const STATUS_DELAY_MS = 400;
const FRAME_MS = 100;
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface StatusLine {
  /** false: nothing is ever drawn (no terminal), so nothing need be gathered for it */
  readonly live: boolean;
  /** shows (or updates) the line for one piece of work */
  set(key: string, text: string): void;
  /** that work ended: its line goes */
  done(key: string): void;
  /** everything ended: the line goes for good */
  close(): void;
  /** the line is down while `work` runs (a question asked on the terminal), then drawn again */
  hold<T>(work: () => Promise<T>): Promise<T>;
}

const NONE: StatusLine = { live: false, set() {}, done() {}, close() {}, hold: (work) => work() };

/**
 * Whether fd 2 is a terminal. Reading process.stderr.isTTY materialises Bun's stderr stream, which
 * costs start-up time (more on a busy machine); a pipe, a file or a socket is plainly not a terminal,
 * which fstat says at once, and so is /dev/null: only another character device is asked the slow way.
 */
function stderrIsTTY(): boolean {
  try {
    const st = fstatSync(2);
    if (!st.isCharacterDevice()) return false;
    // `2>/dev/null`, the common character device that is no terminal: spared the slow way too
    if (st.rdev === statSync("/dev/null", { throwIfNoEntry: false })?.rdev) return false;
  } catch {
    return false; // no fd 2
  }
  return process.stderr.isTTY === true;
}

/** a status line on stderr when it is a terminal (and TERM is not dumb); otherwise one that does nothing */
export function statusLine(env: Record<string, string | undefined>, isTTY = stderrIsTTY()): StatusLine {
  if (!isTTY || env.TERM === "dumb") return NONE;
  const work = new Map<string, { text: string; since: number }>();
  let frame = 0;
  let drawn = false;
  let held = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const width = () => Math.max(20, (process.stderr.columns || 80) - 1);
  const current = () => {
    const now = Date.now();
    for (const w of work.values()) if (now - w.since >= STATUS_DELAY_MS) return w.text;
    return undefined;
  };
  const line = {
    hide() {
      if (drawn) raw("\r\x1b[K");
      drawn = false;
    },
    show() {
      const text = held > 0 ? undefined : current();
      if (text === undefined) return;
      raw(`\r\x1b[K${`${FRAMES[frame % FRAMES.length]} ${text}`.slice(0, width())}`);
      drawn = true;
    },
  };
  const stop = () => {
    line.hide();
    setTransientLine(undefined);
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    live: true,
    set(key, text) {
      const since = work.get(key)?.since ?? Date.now();
      work.set(key, { text, since });
      if (timer) return;
      setTransientLine(line);
      timer = setInterval(() => {
        frame++;
        line.hide();
        line.show();
      }, FRAME_MS);
      // the line must never keep mcpx alive
      timer.unref?.();
    },
    done(key) {
      work.delete(key);
      if (work.size === 0) stop();
      else {
        line.hide();
        line.show();
      }
    },
    close() {
      work.clear();
      stop();
    },
    async hold(run) {
      held++;
      line.hide();
      try {
        return await run();
      } finally {
        held--;
      }
    },
  };
}
