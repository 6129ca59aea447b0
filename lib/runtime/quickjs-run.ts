// A sandboxed run on the embedded engine (exec.sandboxEngine quickjs, decision 0023): the same
// generated launcher as every other run, in a QuickJS instance inside this process. It has no file
// system, network, process or environment: its only ways out are the host functions below, which
// launcher/sys-quickjs.ts takes: an ordered stream (the frames, read by the one reader every engine
// shares), the handoff (once), the run's channel socket (the same token-checked channel as Deno's),
// and timers. TypeScript is transpiled here; the module loader serves the run's own three modules and
// nothing else. Memory is bounded by QuickJS's own allocator limit, time by its interrupt handler,
// which also ends a busy loop that never yields to this process's event loop.

import { readFileSync } from "node:fs";
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten";
import { frameError } from "../errors/frame-error.ts";
import { exitCodeOf } from "../errors/codes.ts";
import type { Channel } from "./channel.ts";
import type { Handoff } from "../../launcher/wire.ts";
import { scriptAsJs } from "./launcher-files.ts";
import { launcherOutput, type Wire } from "./launcher-output.ts";
import { quickjsInstance } from "./quickjs-engine.ts";
import type { RunHandlers, RunOutcome, RunSpec } from "./run-spec.ts";
import { heapOutcome, stoppedOutcome } from "./run-watch.ts";
import { trace } from "../util/trace.ts";

/** the heap of a run that names none (exec.maxHeap 0): the engine's memory is this process's, so it always has a bound */
const DEFAULT_HEAP_MB = 512;
/** QuickJS's own stack bound: deep recursion is a RangeError in the script, never a wasm trap */
const STACK_BYTES = 1 << 20;

export interface QuickjsRunFiles {
  launcher: string;
  runtimeFile: string;
  scriptPath: string;
}

export async function runQuickjs(spec: RunSpec, h: RunHandlers, wire: Wire, handoff: Handoff, files: QuickjsRunFiles, channel: Channel): Promise<RunOutcome> {
  let run: QuickjsRun | undefined;
  try {
    const engine = await quickjsInstance(spec.runtimes?.oneRun !== true);
    trace("quickjs instance");
    const rt = engine.newRuntime();
    rt.setMemoryLimit(heapOf(spec).mb * 1024 * 1024);
    rt.setMaxStackSize(STACK_BYTES);
    run = new QuickjsRun(spec, rt, rt.newContext(), launcherOutput(h, wire, handoff.nonce, channel), handoff);
    return await run.start(files);
  } finally {
    channel.close();
    run?.release();
  }
}

/** the run's heap limit: exec.maxHeap's (or the agent's), else the engine's own, as the error names it */
function heapOf(spec: RunSpec): NonNullable<RunSpec["heap"]> {
  return spec.heap ?? { mb: DEFAULT_HEAP_MB, from: "the QuickJS sandbox's own limit (exec.maxHeap 0)" };
}

type Stop = "timeout" | "interrupted";

class QuickjsRun {
  private stopped: Stop | undefined;
  private finished = false;
  private done!: (o: RunOutcome) => void;
  private readonly outcome = new Promise<RunOutcome>((r) => (this.done = r));
  private evaluation: QuickJSHandle | undefined;
  private readonly timers = new Map<number, { timer: ReturnType<typeof setTimeout>; fire: QuickJSHandle }>();
  private nextTimer = 1;
  private socket:
    | { held: boolean; queued: string[]; s?: import("bun").Socket<undefined>; onData: QuickJSHandle; onError: QuickJSHandle; pending: Uint8Array }
    | undefined;
  private handedOver = false;
  private readonly toLatin1 = (s: string) => Buffer.from(s, "utf8").toString("latin1");
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onAbort = () => this.stop("interrupted");

  constructor(
    private readonly spec: RunSpec,
    private readonly rt: QuickJSRuntime,
    private readonly ctx: QuickJSContext,
    private readonly output: ReturnType<typeof launcherOutput>,
    private readonly handoff: Handoff,
  ) {}

  async start(files: QuickjsRunFiles): Promise<RunOutcome> {
    const deadline = this.spec.timeoutMs > 0 ? Date.now() + this.spec.timeoutMs : Number.POSITIVE_INFINITY;
    // a busy loop never yields to this process's event loop: the engine itself asks whether to go on
    this.rt.setInterruptHandler(() => {
      if (!this.stopped && Date.now() > deadline) this.stopped = "timeout";
      return this.stopped !== undefined;
    });
    if (this.spec.timeoutMs > 0) this.deadlineTimer = setTimeout(() => this.stop("timeout"), this.spec.timeoutMs);
    this.spec.signal?.addEventListener("abort", this.onAbort);
    if (this.spec.signal?.aborted) this.onAbort();
    this.installHost();
    this.installLoader(files);
    const launcherUrl = Bun.pathToFileURL(files.launcher).href;
    const result = this.ctx.evalCode(jsOf(files.launcher, readFileSync(files.launcher, "utf8")), launcherUrl, { type: "module" });
    trace("quickjs launcher evaluated");
    if (result.error) this.uncaught(result.error);
    else this.evaluation = result.value;
    this.drain();
    return this.outcome;
  }

  /** the run ends now, by its timeout or a cancel: the engine stops at its next interrupt check, and nothing of it runs again */
  private stop(why: Stop): void {
    if (this.finished) return;
    this.stopped ??= why;
    this.finish();
  }

  /** runs what the engine has queued, then ends the run if nothing can happen any more */
  private drain(): void {
    if (this.finished) return;
    for (;;) {
      const r = this.rt.executePendingJobs();
      if (r.error) {
        this.uncaught(r.error);
        break;
      }
      const n = r.value;
      if (n === 0 || this.stopped) break;
    }
    if (this.stopped || this.uncaughtText !== undefined) {
      this.finish();
      return;
    }
    const state = this.evaluation ? this.ctx.getPromiseState(this.evaluation) : undefined;
    if (state?.type === "rejected") {
      this.uncaught(state.error);
      this.finish();
      return;
    }
    if (state?.type === "fulfilled" && state.notAPromise !== true) state.value.dispose();
    const alive = this.timers.size > 0 || this.socket?.held === true || this.reading > 0;
    if (!alive) this.finish();
  }

  /**
   * An error nothing in the run caught (the launcher catches the script's own): a throwing timer
   * callback, or the engine's own out of memory. As on a runtime, where it ends the process, it ends
   * the run; its name and message become the run's error.
   */
  private uncaught(err: QuickJSHandle): void {
    const { ctx } = this;
    const field = (k: string) => {
      const h = ctx.getProp(err, k);
      const v = ctx.typeof(h) === "string" ? ctx.getString(h) : undefined;
      h.dispose();
      return v;
    };
    const text = ctx.typeof(err) === "object" ? `${field("name") ?? "Error"}: ${field("message") ?? ""}` : String(ctx.dump(err));
    err.dispose();
    if (this.stopped) return;
    if (/out of memory/i.test(text)) this.outOfMemory = true;
    this.uncaughtText ??= text;
  }
  private outOfMemory = false;
  private uncaughtText: string | undefined;

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadlineTimer);
    this.spec.signal?.removeEventListener("abort", this.onAbort);
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.socket?.s?.end();
    this.output.end();
    this.done(this.outcomeNow());
  }

  private outcomeNow(): RunOutcome {
    if (this.stopped) return stoppedOutcome(this.spec, this.stopped);
    const marker = this.output.marker();
    if (marker?.ok !== true && (this.outOfMemory || (marker && /out of memory/i.test(marker.error.message)))) return heapOutcome(heapOf(this.spec), 1);
    if (marker?.ok) return { ok: true, value: marker.value, exitCode: 0 };
    if (marker) return { ok: false, error: marker.error, exitCode: 1 };
    const why = this.uncaughtText ?? "the script's top level awaits a promise that nothing is left to settle";
    return { ok: false, exitCode: exitCodeOf("EXIT", 1), error: frameError("EXIT", `the script ended without a result: ${why}`) };
  }

  /**
   * What the engine holds goes with its instance, which is this run's alone (quickjs-engine.ts): it is
   * not disposed handle by handle, because QuickJS asserts on a handle still held (a timer never
   * fired, a promise never settled) and aborts, which is no concern of the run's.
   */
  release(): void {
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.socket?.s?.end();
  }

  // ── host functions: every argument is checked for its type here; nothing of the script's is called but its callbacks ──

  private installHost(): void {
    const { ctx } = this;
    const host = ctx.newObject();
    const fn = (name: string, f: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => {
      const h = ctx.newFunction(name, f);
      ctx.setProp(host, name, h);
      h.dispose();
    };
    const str = (h: QuickJSHandle | undefined, what: string): string => {
      if (!h || ctx.typeof(h) !== "string") throw new TypeError(`mcpx host: ${what} is not a string`);
      return ctx.getString(h);
    };
    const func = (h: QuickJSHandle | undefined, what: string): QuickJSHandle => {
      if (!h || ctx.typeof(h) !== "function") throw new TypeError(`mcpx host: ${what} is not a function`);
      return h.dup();
    };
    fn("write", (text) => {
      this.output.push(this.toLatin1(str(text, "write's text")));
      return undefined;
    });
    fn("handoff", () => {
      // the run's secrets, once: read before any of the script's code runs (decision 0007)
      if (this.handedOver) throw new Error("mcpx host: the run was handed over already");
      this.handedOver = true;
      return ctx.newString(JSON.stringify(this.handoff));
    });
    fn("connect", (path, onData, onError) => {
      if (this.socket) throw new Error("mcpx host: the channel is connected already");
      this.connect(str(path, "connect's path"), func(onData, "connect's onData"), func(onError, "connect's onError"));
      return undefined;
    });
    fn("send", (text) => {
      this.send(str(text, "send's text"));
      return undefined;
    });
    fn("end", () => {
      this.socket?.s?.end();
      return undefined;
    });
    fn("ref", (held) => {
      if (this.socket) this.socket.held = ctx.typeof(held!) === "boolean" && ctx.dump(held!) === true;
      return undefined;
    });
    fn("timer", (ms, fire) => {
      const delay = ms && ctx.typeof(ms) === "number" ? Math.max(0, ctx.getNumber(ms)) : 0;
      const id = this.nextTimer++;
      const cb = func(fire, "timer's callback");
      const timer = setTimeout(() => {
        this.timers.delete(id);
        this.callback(cb);
      }, delay);
      this.timers.set(id, { timer, fire: cb });
      return ctx.newNumber(id);
    });
    fn("clearTimer", (id) => {
      const t = id && ctx.typeof(id) === "number" ? this.timers.get(ctx.getNumber(id)) : undefined;
      if (t) {
        clearTimeout(t.timer);
        t.fire.dispose();
        this.timers.delete(ctx.getNumber(id!));
      }
      return undefined;
    });
    fn("stdin", () => {
      const d = ctx.newPromise();
      // a read under way keeps the run alive, as a runtime's pending read does
      this.reading++;
      void this.stdinText().then((text) => {
        this.reading--;
        if (this.finished) return;
        const t = ctx.newString(text);
        d.resolve(t);
        t.dispose();
        this.drain();
      });
      return d.handle;
    });
    ctx.setProp(ctx.global, "__mcpxQuickjs", host);
    host.dispose();
  }

  /** the run's stdin as a string: given with the run, or this process's own when the run inherits it (read once, when the script asks) */
  private stdinRead: Promise<string> | undefined;
  private reading = 0;
  private stdinText(): Promise<string> {
    const given = this.spec.stdin;
    this.stdinRead ??= given === "inherit" ? Bun.stdin.text() : Promise.resolve(given);
    return this.stdinRead;
  }

  /** one of the script's callbacks, from this process's event loop, then whatever it queued */
  private callback(cb: QuickJSHandle, arg?: string): void {
    // a timer's callback is its own to dispose; the channel's two are the run's (release)
    if (this.finished) {
      if (arg === undefined) cb.dispose();
      return;
    }
    const a = arg === undefined ? undefined : this.ctx.newString(arg);
    const r = a ? this.ctx.callFunction(cb, this.ctx.undefined, a) : this.ctx.callFunction(cb, this.ctx.undefined);
    a?.dispose();
    if (arg === undefined) cb.dispose();
    if (r.error) this.uncaught(r.error);
    else r.value.dispose();
    this.drain();
  }

  private connect(path: string, onData: QuickJSHandle, onError: QuickJSHandle): void {
    const sock = { held: true, queued: [] as string[], onData, onError, pending: new Uint8Array(0) } as NonNullable<QuickjsRun["socket"]>;
    this.socket = sock;
    const decoder = new TextDecoder();
    const failed = (why: string) => {
      sock.held = false;
      this.callback(onError, why);
    };
    Bun.connect({
      unix: path,
      socket: {
        data: (_s, d) => this.callback(onData, decoder.decode(d, { stream: true })),
        drain: (s) => this.flush(s),
        close: () => failed("closed"),
        error: (_s, e) => failed(String(e)),
      },
    }).then(
      (s) => {
        sock.s = s;
        for (const t of sock.queued.splice(0)) this.send(t);
      },
      (e) => failed(String(e)),
    );
  }

  private send(text: string): void {
    const sock = this.socket;
    if (!sock) throw new Error("mcpx host: send before connect");
    if (!sock.s) return void sock.queued.push(text);
    const b = new TextEncoder().encode(text);
    const next = new Uint8Array(sock.pending.byteLength + b.byteLength);
    next.set(sock.pending);
    next.set(b, sock.pending.byteLength);
    sock.pending = next;
    this.flush(sock.s);
  }

  private flush(s: { write(b: Uint8Array): number }): void {
    const sock = this.socket;
    if (!sock || sock.pending.byteLength === 0) return;
    const n = s.write(sock.pending);
    sock.pending = n < 0 ? new Uint8Array(0) : sock.pending.subarray(n);
  }

  /** the run's own modules, transpiled here: the launcher's runtime and the script; any other import is refused */
  private installLoader(files: QuickjsRunFiles): void {
    const own = new Map<string, string>([
      [Bun.pathToFileURL(files.runtimeFile).href, files.runtimeFile],
      [Bun.pathToFileURL(files.scriptPath).href, files.scriptPath],
    ]);
    this.rt.setModuleLoader(
      (name) => {
        const path = own.get(name);
        if (path === undefined) {
          return {
            error: new Error(
              `NotCapable: the QuickJS sandbox loads no module but the run's own script, and refused ${JSON.stringify(name)}: it has no ` +
                `file system, network, process or environment; a script that imports packages or other files needs exec.sandboxEngine deno`,
            ),
          };
        }
        return jsOf(path, readFileSync(path, "utf8"));
      },
      // a relative or absolute path is a file beside its importer; a bare name (a package) stays as written, as the loader refuses it
      (base, name) => (/^(\.{1,2}\/|\/|file:)/.test(name) ? new URL(name, base).href : name),
    );
  }
}

const transpilers = new Map<string, InstanceType<typeof Bun.Transpiler>>();
/** modules transpiled before, by their text: the runtime bundle and a launcher are the same text run after run */
const transpiled = new Map<string, string>();
const TRANSPILED_KEPT = 64;

/** a module's JavaScript: TypeScript stripped by the host; one that does not parse throws what the transpiler said, where (launcher-files.ts scriptAsJs) */
function jsOf(path: string, text: string): string {
  const loader = /\.(m|c)?tsx?$/.test(path) ? (path.endsWith("x") ? "tsx" : "ts") : /\.jsx$/.test(path) ? "jsx" : "js";
  let t = transpilers.get(loader);
  if (!t) {
    t = new Bun.Transpiler({ loader, target: "browser" });
    transpilers.set(loader, t);
  }
  const use = t;
  const key = `${loader}\0${text}`;
  let js = transpiled.get(key);
  if (js === undefined) {
    js = scriptAsJs((s) => use.transformSync(s), text);
    if (transpiled.size >= TRANSPILED_KEPT) transpiled.delete(transpiled.keys().next().value!);
    transpiled.set(key, js);
  }
  return js;
}
