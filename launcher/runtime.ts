// The in-script half of mcpx: imported first by every generated launcher, on Bun, Deno or Node.
// Runtime-neutral on purpose: only node: builtins that all three implement, no npm:/remote imports.
//
// Wire (the host half is lib/runtime/runner.ts; every message is declared in wire.ts):
//   fd 3  the handoff: the run, its channel's secrets included, read once and emptied before the
//         script runs, so the script never finds them (decision 0007).
//   fd 1  the ordered stream. Plain text is the script's stdout; a line that starts with
//         RS + nonce is a frame (JSON). Writes are synchronous so that process.exit() loses nothing
//         and stdout, stderr, logs, emits and call requests keep the order they were written in.
//   sock  a per-run unix socket, authenticated by a token, that carries call answers back.

import { detectSys, hostGone, type Conn } from "./sys.ts";
import { unwrap } from "./unwrap.ts";
import { decodeHandoff, decodeHostAnswer, RS, type FeatureOp, type HostAnswer, type LauncherMessage, type LogLevel, type WireError } from "./wire.ts";

// biome-ignore lint/suspicious/noExplicitAny: the runtime's globals (process, Bun, Deno) differ per runtime and are probed at run time
const g = globalThis as Record<string, any>;
const proc = g.process as { env: Record<string, string | undefined>; exitCode?: number; argv?: string[] };
// a child the script starts (such as mcpx itself) must not be bun
try {
  delete proc.env.BUN_BE_BUN;
} catch {
  // a sandboxed Deno has no env permission (lib/runtime/sandbox-args.ts); BUN_BE_BUN is never set there
}
// captured before the script can replace them: a replaced JSON.stringify would see, and could rewrite, frame bodies
const stringify = JSON.stringify;

const sys = await detectSys();
const writeOut = sys.write;
const info = decodeHandoff(await sys.takeHandoff());
// a sandboxed run's own variables: set now that the runtime has started (it may read exactly these)
for (const [name, value] of Object.entries(info.env ?? {})) {
  if (g.Deno) g.Deno.env.set(name, value);
  else proc.env[name] = value;
}

/**
 * The run's launcher, for a runtime started before its run (lib/runtime/ready-runtime.ts): its entry
 * waits above for the handoff, then imports this. process.argv[1] becomes the launcher, as it is for
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
watchHost(info.host);

function frame(body: LauncherMessage): void {
  writeOut(RS + info.nonce + safeJson(body) + "\n");
}

/**
 * A call frame, byte for byte what frame() writes for { t: "call", id, server, tool, args }, with only
 * the arguments given to safeJson: the frame around them is known to be plain JSON, and looking it over
 * again for every call is most of what safeJson costs a small call.
 */
function callFrame(id: number, server: string, tool: string, args: unknown): void {
  const json = safeJson(args ?? {});
  // undefined: JSON has no text for the arguments (a symbol, a toJSON giving undefined), so the key is left out, as stringify leaves it
  const tail = json === undefined ? "}\n" : `,"args":${json}}\n`;
  writeOut(`${RS}${info.nonce}{"t":"call","id":${id},"server":${stringify(server)},"tool":${stringify(tool)}${tail}`);
}

/** JSON that never throws: bigint as string, cycles and functions described, undefined dropped */
export function safeJson(value: unknown): string {
  // most frames are small plain JSON, where a replacer called on every key is the whole cost
  if (plainJson(value, [])) return stringify(value);
  const seen = new WeakSet<object>();
  return stringify(value, (_k, v) => {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
    if (v instanceof Error) return serializeError(v);
    if (v && typeof v === "object") {
      if (seen.has(v)) return "[Circular]";
      seen.add(v);
    }
    return v;
  });
}

/** how many objects plainJson looks at before it leaves a value to safeJson's replacer (shared references are looked for among them) */
const PLAIN_SCAN_OBJECTS = 64;

/**
 * True when JSON.stringify alone gives what safeJson's replacer would: only strings, finite-or-not
 * numbers, booleans, null, plain objects and arrays, with no object met twice (the replacer writes a
 * repeated object as "[Circular]") and no toJSON. Anything else, or more than PLAIN_SCAN_OBJECTS
 * objects, takes the replacer.
 */
function plainJson(v: unknown, objects: object[]): boolean {
  if (v === null) return true;
  const t = typeof v;
  if (t === "string" || t === "number" || t === "boolean") return true;
  if (t !== "object") return false;
  const o = v as Record<string, unknown>;
  if (objects.length >= PLAIN_SCAN_OBJECTS || objects.includes(o)) return false;
  objects.push(o);
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) if (!plainJson(o[i], objects)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(o);
  if ((proto !== Object.prototype && proto !== null) || "toJSON" in o) return false;
  for (const k in o) if (!plainJson(o[k], objects)) return false;
  return true;
}

// ── output capture: installed at import, before the `before` phase, so even it keeps its order ──

const toStdout = (...args: unknown[]) => writeOut(sys.format(args) + "\n");
const toStderr = (...args: unknown[]) => frame({ t: "stderr", d: sys.format(args) + "\n" });
const c = console as unknown as Record<string, (...a: unknown[]) => void>;
c.log = c.info = c.debug = c.dir = toStdout;
c.error = c.warn = toStderr;
c.trace = (...args: unknown[]) => toStderr("Trace:", ...args, "\n" + (new Error().stack ?? "").split("\n").slice(2).join("\n"));

/**
 * process.stdout/stderr writes go through the same ordered channel on Deno and Node. Not on Bun:
 * there, redefining or even reading process.stdout materialises the stream, a start-up cost per
 * stream, so Bun's own process.stdout keeps writing to fd 1 directly (still
 * in order: both it and our writer write through at once, sys.ts syncBunStdio), and process.stderr to fd 2, whose order
 * relative to fd 1 is best effort, like a child process's stderr (docs/frames.md).
 */
function interceptStream(name: "stdout" | "stderr", send: (chunk: string | Uint8Array) => void): void {
  const desc = Object.getOwnPropertyDescriptor(g.process, name);
  let stream: { write: unknown } | undefined;
  Object.defineProperty(g.process, name, {
    configurable: true,
    enumerable: true,
    get() {
      if (!stream) {
        stream = (desc?.get ? desc.get.call(g.process) : desc?.value) as { write: unknown };
        patchWrite(stream, send);
      }
      return stream;
    },
  });
}

function patchWrite(stream: { write: unknown }, send: (chunk: string | Uint8Array) => void): void {
  stream.write = (chunk: unknown, encodingOrCb?: unknown, cb?: unknown) => {
    // bytes stay bytes: a script's stdout is not always text (the host keeps them exact)
    send(typeof chunk === "string" ? chunk : (chunk as Uint8Array));
    const done = typeof encodingOrCb === "function" ? encodingOrCb : cb;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
}
if (!g.Bun) {
  interceptStream("stdout", writeOut);
  const stderrText = new TextDecoder();
  interceptStream("stderr", (d) => frame({ t: "stderr", d: typeof d === "string" ? d : stderrText.decode(d, { stream: true }) }));
}

// ── the call channel: opened at the first call, so a script that calls nothing never pays for it ──

let conn: Promise<Conn> | undefined;
/** the channel once connected: a call then writes its frame without waiting a promise turn for it */
let open: Conn | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void; server: string; tool: string }>();

function channel(): Promise<Conn> {
  conn ??= sys
    .connect(info.sock, (line) => settle(decodeHostAnswer(line)), failAll)
    .then((c) => {
      c.write(info.token + "\n");
      open = c;
      // an idle channel must not keep a finished script alive: held only while a call is in flight
      if (pending.size === 0) c.unref();
      return c;
    });
  return conn;
}

// A sandboxed Deno was handed its run as a file it may only read (lib/runtime/sandbox-args.ts channelGrants):
// the host deletes it when the token arrives, so that token is sent now, not at the first call.
if (typeof g.Deno?.args?.[0] === "string") void channel().catch(() => {});

function settle(answer: HostAnswer | undefined): void {
  if (!answer) return;
  const p = pending.get(answer.id);
  if (!p) return;
  pending.delete(answer.id);
  // an idle channel must not keep a finished script alive (an answer arrives only on an open channel)
  if (pending.size === 0) open?.unref();
  if (answer.ok) p.resolve(answer.value);
  else p.reject(reviveError(answer.error));
}

function failAll(err: unknown): void {
  for (const [id, p] of pending) {
    pending.delete(id);
    p.reject(new Error(`mcpx channel closed during ${p.server}.${p.tool}: ${String(err)}`));
  }
}

/** a failed tool call: isError results carry the server, the tool and the raw MCP result */
export class ToolError extends Error {
  override name = "ToolError";
  server: string;
  tool: string;
  raw: unknown;
  code?: string;
  constructor(message: string, server: string, tool: string, raw: unknown, code?: string) {
    super(message);
    this.server = server;
    this.tool = tool;
    this.raw = raw;
    this.code = code;
  }
}

function reviveError(e: WireError): Error {
  const d = e.data ?? {};
  if (e.name === "ToolError") return new ToolError(e.message, String(d.server ?? ""), String(d.tool ?? ""), d.raw, e.code);
  const err = new Error(e.message);
  err.name = e.name;
  (err as { code?: string }).code = e.code;
  return err;
}

/** send one tools/call to the host, which gates it and forwards it upstream; resolves to the raw result */
function rawCall(server: string, tool: string, args: unknown): Promise<unknown> {
  // the first call waits for the channel; later ones go out at once, in the turn the script called in
  const c = open;
  if (!c) return channel().then(() => rawCall(server, tool, args));
  // held while a call is in flight (settle lets go once none is): ref'd only when the first one starts
  if (pending.size === 0) c.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, server, tool });
    // the request travels on fd 1, so it keeps its order with what the script printed before it
    callFrame(id, server, tool, args);
  });
}

/**
 * resources.read / prompts.get: one request to the host, which passes it through the resource.read or
 * prompt.get point of the gate and sends it upstream; resolves to the raw MCP result ({contents} or
 * {description, messages}). Checked here so a script's slip says what is wrong in the script's own terms.
 */
function feature(op: FeatureOp, server: unknown, target: unknown, args?: unknown): Promise<unknown> {
  const fn = op === "resource.read" ? "resources.read(server, uri)" : "prompts.get(server, name, args)";
  if (typeof server !== "string" || typeof target !== "string")
    return Promise.reject(new TypeError(`${fn}: server and ${op === "resource.read" ? "uri" : "name"} are strings`));
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args) || !Object.values(args).every((v) => typeof v === "string")))
    return Promise.reject(new TypeError(`${fn}: args is an object of strings (MCP prompt arguments are strings)`));
  const c = open;
  if (!c) return channel().then(() => feature(op, server, target, args));
  if (pending.size === 0) c.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, server, tool: target });
    frame({ t: "feature", id, op, server, target, args: (args ?? {}) as Record<string, string> });
  });
}

function callTool(server: string, tool: string, args?: unknown, opts?: { raw?: boolean }): Promise<unknown> {
  const calling = rawCall(server, tool, args);
  return opts?.raw ? calling : calling.then(unwrap);
}

function namespace(server: string): Record<string, unknown> {
  // one function per tool, made at its first access: a loop of calls does not build one per call
  const fns = new Map<string, unknown>();
  return new Proxy({} as Record<string, unknown>, {
    get(_t, prop) {
      // not a tool: keeps `await ns`, template literals and inspection from calling the server
      if (typeof prop !== "string" || prop === "then" || prop === "toJSON" || prop === "constructor") return undefined;
      let fn = fns.get(prop);
      if (!fn) {
        const f = (args?: unknown) => callTool(server, prop, args);
        f.raw = (args?: unknown) => callTool(server, prop, args, { raw: true });
        fn = f;
        fns.set(prop, f);
      }
      return fn;
    },
  });
}

// ── globals ──────────────────────────────────────────────────────────────────

export const result: { value?: unknown; error?: unknown } = {};

const logAt =
  (level: LogLevel) =>
  (...args: unknown[]) =>
    frame({ t: "log", level, msg: sys.format(args) });

/**
 * Installs log, emit, script, result and ToolError: they need no server, so they are there before the
 * before phase runs (decision 0005). The tool globals wait for installGlobals.
 */
export function installBaseGlobals(): void {
  const log = Object.assign(logAt("info"), { debug: logAt("debug"), info: logAt("info"), warn: logAt("warn"), error: logAt("error") });
  Object.assign(globalThis as Record<string, unknown>, {
    log,
    emit: (value: unknown) => frame({ t: "emit", v: value }),
    script: Object.freeze({ ...info.script, runId: info.runId }),
    result,
    ToolError,
  });
}

/** installs the tool globals after the before phase: one namespace per server, tools and call */
export async function installGlobals(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  const tools: Record<string, unknown> = {};
  for (const { name, global } of info.servers) {
    tools[name] = namespace(name);
    if (global) g[global] = tools[name];
  }
  const resources = Object.freeze({ read: (server: unknown, uri: unknown) => feature("resource.read", server, uri) });
  const prompts = Object.freeze({ get: (server: unknown, name: unknown, args?: unknown) => feature("prompt.get", server, name, args) });
  Object.assign(g, { tools, call: callTool, resources, prompts });
}

/**
 * The error a phase line threw, with "(script.PHASE line N, from ORIGIN)" appended to its message, so
 * every surface that shows the message shows where the line came from. The error the phase was handed
 * (result.error, rethrown by an onError line) is the script's own and stays as it was; a thrown
 * non-Error becomes an Error carrying its text.
 */
export function phaseError(err: unknown, where: string): unknown {
  if (!where || (err === result.error && err !== undefined)) return err;
  if (err instanceof Error) {
    try {
      err.message = `${err.message} (${where})`;
      return err;
    } catch {
      // a frozen error: report a copy that says where it came from
      const copy = new Error(`${err.message} (${where})`);
      copy.name = err.name;
      return copy;
    }
  }
  return new Error(`${typeof err === "string" ? err : (safeJson(err) ?? String(err))} (${where})`);
}

/**
 * An onError or suffix line threw: said as an error log (stderr, the envelope's logs), and the run's
 * outcome stands, so that neither the script's own error nor the line's is lost. An onError line
 * that rethrows result.error has said nothing new.
 */
export function phaseFailed(phase: "onError" | "suffix", err: unknown): void {
  if (phase === "onError" && err === result.error) return;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === "string" ? err : safeJson(err);
  const stands = phase === "onError" ? "the script's own error stands" : "the run's outcome stands";
  frame({ t: "log", level: "error", msg: `script.${phase} failed, and ${stands}: ${message}` });
}

// exec snippets are written to the cache as snippets/snippet-HASH.ts; errors call them "snippet"
const SNIPPET_PATH = /[\\/]snippets[\\/]snippet-[0-9a-f]+\.ts$/;

/**
 * A script that does not load: a syntax error says where, as the user knows the script ("snippet
 * line 1:11", or the file's path and line:column), whichever runtime found it. Errors the script's
 * own top level throws pass through untouched.
 */
export function loadError(err: unknown): never {
  const path = info.script.path;
  const snippet = SNIPPET_PATH.test(path);
  type Built = { name?: string; message?: string; position?: { line?: number; column?: number } | null };
  const thrown = err as Built & { errors?: Built[] };
  // Bun: a BuildMessage with the position (an AggregateError of them for several: the first is where
  // it stopped), and no stack worth keeping: its only frame is `at <parse> (:0)`
  const e = thrown?.errors?.[0]?.name === "BuildMessage" ? thrown.errors[0]! : thrown;
  if (e?.name === "BuildMessage" && e.position?.line !== undefined) {
    const at = `${e.position.line}:${e.position.column ?? 0}`;
    const out = new SyntaxError(`${e.message} (${snippet ? `snippet line ${at}` : `${path}:${at}`})`);
    out.stack = `SyntaxError: ${out.message}`;
    throw out;
  }
  const missing = missingPackage(e?.message);
  if (missing && err instanceof Error) {
    try {
      err.message +=
        `\nmcpx does not install packages a script imports (exec.autoInstall is off): ` +
        `install ${missing} in the script's project (npm i ${missing}), or allow installs with ` +
        `exec.autoInstall true (MCPX_EXEC_AUTO_INSTALL=true)`;
    } catch {
      // a frozen error keeps its words
    }
  }
  // Deno and Node put the module's URL in the message: a snippet's cache path means nothing to its author
  if (snippet && err instanceof Error && typeof err.message === "string") {
    const url = new URL(`file://${path}`).href;
    if (err.message.includes(url) || err.message.includes(path)) {
      try {
        err.message = err.message.replaceAll(url + ":", "snippet line ").replaceAll(path + ":", "snippet line ");
      } catch {
        // a frozen error keeps its words
      }
    }
  }
  throw err;
}

/**
 * The script's URL, handed back through a call so that Deno cannot see it statically: a literal
 * `import("file:…")` puts the script in Deno's initial module graph, whose files (and every file they
 * import, `/home/u/.ssh/id_rsa` included) are loaded without read permission. Imported this way, the
 * sandbox's --allow-read decides what the script may load (decision 0008).
 */
export function scriptUrl(url: string): string {
  return url;
}

/**
 * The package a failed import names, when it is a package (not a relative or absolute file): Bun's
 * "Cannot find package 'x'", Deno's `Import "x" not a dependency` and its npm: cache misses.
 */
function missingPackage(message: string | undefined): string | undefined {
  if (typeof message !== "string") return undefined;
  const m =
    /Cannot find (?:package|module) '([^']+)'/.exec(message) ??
    /Import "([^"]+)" not a dependency/.exec(message) ??
    /"npm:(@?[^@"/]+(?:\/[^@"/]+)?)[^"]*"/.exec(message) ??
    /package "(@?[^"@]+)/.exec(message);
  const name = m?.[1];
  if (!name || /^(\.|\/|file:|node:|https?:)/.test(name)) return undefined;
  return name.replace(/^npm:/, "");
}

/** the default export gets the args array; a named export gets them spread */
export async function callEntry(mod: Record<string, unknown>): Promise<unknown> {
  const name = info.script.export;
  if (name) {
    const fn = mod[name];
    if (typeof fn !== "function") {
      const names = Object.keys(mod).filter((k) => typeof mod[k] === "function");
      throw new Error(`--export ${name}: ${info.script.path} has no exported function "${name}"; its exported functions: ${names.join(", ") || "none"}`);
    }
    return await fn(...info.script.args);
  }
  if (typeof mod.default === "function") return await mod.default(info.script.args);
  return mod.default;
}

/**
 * Deno's sandbox refusal ends "run again with the --allow-read flag", a flag of Deno's that the user of
 * mcpx cannot give: it names exec.sandboxAllow instead (what can be widened), or says what never is.
 */
function sandboxHint(message: string): string {
  return message.replace(/,? run again with the --allow-([a-z]+) flag\.?/, (_m, kind: string) => {
    const what = /^Requires [a-z]+ access to (".*?")/.exec(message)?.[1];
    if (["read", "write", "net", "env"].includes(kind))
      return `: the sandbox allows it only through the exec.sandboxAllow setting, e.g. {"${kind}": [${what ?? "…"}]} (docs/security.md)`;
    return `: the sandbox never allows ${kind} access (exec.sandboxAllow widens read, write, net and env only; docs/security.md)`;
  });
}

export function serializeError(err: unknown): WireError {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; server?: string; tool?: string; raw?: unknown };
    const message = e.name === "NotCapable" ? sandboxHint(e.message) : e.message;
    const out: WireError = { name: e.name, message, stack: e.stack === undefined ? undefined : e.stack.replace(e.message, message) };
    if (typeof e.code === "string") out.code = e.code;
    if (err instanceof ToolError) out.data = { server: e.server, tool: e.tool, raw: e.raw };
    return out;
  }
  return { name: "Error", message: typeof err === "string" ? err : safeJson(err) };
}

/** the launcher's last word: one result or error marker, then a natural exit */
export function finish(ok: boolean): void {
  if (ok) frame({ t: "result", v: result.value === undefined ? null : result.value, u: result.value === undefined });
  else {
    frame({ t: "error", e: serializeError(result.error) });
    proc.exitCode = 1;
  }
  void conn?.then((c) => c.end());
}
