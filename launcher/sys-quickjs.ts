// The host runtime's services inside the embedded QuickJS sandbox (sys.ts): the engine has no I/O of
// its own, so each service is a host function mcpx put on the global __mcpxQuickjs before the
// launcher ran (lib/runtime/quickjs-run.ts). They are taken here and the global is deleted, so the
// script never sees them; what the script can reach is what the launcher built on them. Also the
// few ambient APIs a script expects of any runtime and QuickJS lacks: console, timers, queueMicrotask.

import { g } from "./globals.ts";
import { formatWith, lineSplitter, type Sys } from "./sys.ts";

/** what lib/runtime/quickjs-run.ts provides; every argument is checked there, never trusted */
interface QuickjsHost {
  write(text: string): void;
  handoff(): string;
  connect(path: string, onData: (text: string) => void, onError: (why: string) => void): void;
  send(text: string): void;
  end(): void;
  ref(held: boolean): void;
  timer(ms: number, fire: () => void): number;
  clearTimer(id: number): void;
  /** the run's stdin, whole, read when first asked for */
  stdin(): Promise<string>;
}

/** the host functions, if this is the QuickJS sandbox: taken once, and the global deleted */
export function takeQuickjsHost(): QuickjsHost | undefined {
  const host = g.__mcpxQuickjs as QuickjsHost | undefined;
  if (host) delete g.__mcpxQuickjs;
  return host;
}

export function quickjsSys(host: QuickjsHost): Sys {
  installAmbient(host);
  const { write, handoff, connect, send, end, ref } = host;
  return {
    write: (text) => write(typeof text === "string" ? text : String.fromCharCode(...text)),
    takeHandoff: async () => handoff(),
    format: (args) => formatWith(inspect, args),
    async connect(path, onLine, onError) {
      const feed = lineSplitter(onLine);
      connect(path, feed, (why) => onError(new Error(why)));
      return { write: send, end, ref: () => ref(true), unref: () => ref(false) };
    },
  };
}

/**
 * The process a script on QuickJS sees: the run's own variables (ExecOptions.env, --env), its
 * stdin and its stdout and stderr, and nothing else; mcpx's environment is not in it, nor any way to exit or spawn.
 */
export function installQuickjsProcess(host: QuickjsHost, env: Record<string, string>): void {
  const { stdin } = host;
  g.process = {
    env: { ...env },
    argv: [],
    // the launcher's capture puts its own write on each (launcher/capture.ts), as on Deno and Node
    stdout: { write() {} },
    stderr: { write() {} },
    stdin: {
      async *[Symbol.asyncIterator]() {
        const text = await stdin();
        if (text) yield text;
      },
    },
  };
}

/** console (replaced by the launcher's capture), timers on the host's clock, queueMicrotask */
function installAmbient(host: QuickjsHost): void {
  const { timer, clearTimer } = host;
  g.console ??= {};
  const intervals = new Map<number, number>();
  let nextInterval = 1;
  g.setTimeout = (fn: unknown, ms?: unknown, ...args: unknown[]) => timer(Number(ms) || 0, () => typeof fn === "function" && fn(...args));
  g.clearTimeout = (id: unknown) => typeof id === "number" && clearTimer(id);
  g.setInterval = (fn: unknown, ms?: unknown, ...args: unknown[]) => {
    const id = nextInterval++;
    const every = Math.max(1, Number(ms) || 0);
    const tick = () => {
      intervals.set(id, timer(every, tick));
      if (typeof fn === "function") fn(...args);
    };
    intervals.set(id, timer(every, tick));
    return id;
  };
  g.clearInterval = (id: unknown) => {
    const t = intervals.get(id as number);
    if (t !== undefined) clearTimer(t);
    intervals.delete(id as number);
  };
  g.queueMicrotask ??= (fn: () => void) => void Promise.resolve().then(fn);
}

const INSPECT_DEPTH = 4;

const quoted = (s: string) => JSON.stringify(s);
const keyText = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : quoted(k));

/** a value as console.log shows it, on one line, in the style of Deno's and Bun's inspect */
function inspect(v: unknown, depth = 0, seen: object[] = []): string {
  switch (typeof v) {
    case "string":
      return depth === 0 ? v : quoted(v);
    case "bigint":
      return `${v}n`;
    case "symbol":
    case "number":
    case "boolean":
    case "undefined":
      return String(v);
    case "function":
      return `[Function: ${(v as { name?: string }).name || "(anonymous)"}]`;
  }
  if (v === null) return "null";
  const o = v as object;
  if (seen.includes(o)) return "[Circular]";
  if (o instanceof Error) return o.stack ? `${o.name}: ${o.message}\n${o.stack}`.trimEnd() : `${o.name}: ${o.message}`;
  if (o instanceof Date) return Number.isNaN(o.getTime()) ? "Invalid Date" : o.toISOString();
  if (o instanceof RegExp) return String(o);
  if (depth >= INSPECT_DEPTH) return Array.isArray(o) ? "[Array]" : "[Object]";
  const inner = (x: unknown) => inspect(x, depth + 1, [...seen, o]);
  const list = (open: string, items: string[], close: string) => (items.length ? `${open} ${items.join(", ")} ${close}` : `${open}${close}`);
  if (Array.isArray(o)) return list("[", o.map(inner), "]");
  if (o instanceof Map)
    return list(
      `Map(${o.size}) {`,
      [...o].map(([k, x]) => `${inner(k)} => ${inner(x)}`),
      "}",
    );
  if (o instanceof Set) return list(`Set(${o.size}) {`, [...o].map(inner), "}");
  if (o instanceof Promise) return "Promise { <unknown> }";
  const ctor = (Object.getPrototypeOf(o) as { constructor?: { name?: string } } | null)?.constructor?.name;
  const head = ctor && ctor !== "Object" ? `${ctor} {` : "{";
  return list(
    head,
    Object.keys(o).map((k) => `${keyText(k)}: ${inner((o as Record<string, unknown>)[k])}`),
    "}",
  );
}
