// The wire between the launcher (launcher/runtime.ts, inside the script's runtime) and its host
// (lib/runtime/runner.ts): every message either side sends is declared here once, and each direction is
// decoded by one function. Three legs (decision 0007):
//   handoff  host → launcher, once, on fd HANDOFF_FD: the run (channel secrets, servers, script); a
//            deleted file, or a socket pair for a Bun runtime started before its run (decision 0012)
//   frames   launcher → host on fd 1: RS + nonce + one JSON LauncherMessage + "\n", amid plain stdout
//   answers  host → launcher on the run's socket: one JSON HostAnswer per line, after the token line
// Runtime-neutral and import-free: it is bundled into the launcher's runtime and loaded by the host
// from the same cached copy (lib/runtime/launcher-files.ts says why).

/** starts every frame line on fd 1; the run's nonce follows it */
export const RS = "\x1e";

/** the descriptor the host hands the run over on: a deleted 0600 file the launcher reads, then empties, or a socket pair */
export const HANDOFF_FD = 3;

export type LogLevel = "debug" | "info" | "warn" | "error";

/** an error as it crosses the wire; a ToolError's server, tool and raw result ride in data */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  data?: Record<string, unknown>;
}

/** one configured server as the script sees it */
export interface ServerBinding {
  /** the real server name: tools.NAME and call("NAME", …) */
  name: string;
  /** the global identifier bound to its namespace, or null when that would shadow a global */
  global: string | null;
}

/** what the host hands the launcher before the script runs; never in the environment (decision 0007) */
export interface Handoff {
  /** the mcpx process that started this run and reads its fd 1 */
  host: number;
  sock: string;
  token: string;
  nonce: string;
  runId: string;
  servers: ServerBinding[];
  script: { path: string; name: string; args: string[]; export?: string };
  /** set for a runtime started before its run: the run's launcher, which its entry then imports */
  launcher?: { path: string; url: string };
  /** a sandboxed run's variables (ExecOptions.env): set inside the run, never the runtime's own environment */
  env?: Record<string, string>;
}

/** launcher → host, on fd 1 */
export type LauncherMessage =
  | { t: "stderr"; d: string }
  | { t: "log"; level: LogLevel; msg: string }
  | { t: "emit"; v: unknown }
  | { t: "call"; id: number; server: string; tool: string; args: Record<string, unknown> }
  /** resources.read(server, uri) (target: the URI) or prompts.get(server, name, args) (target: the name); answered as a call is */
  | { t: "feature"; id: number; op: FeatureOp; server: string; target: string; args: Record<string, string> }
  /** one operation of the `workspace` global (lib/workspace/workspace.ts); b64 carries bytes, text a string; answered as a call is */
  | { t: "workspace"; id: number; op: WorkspaceOp; name: string; text?: string; b64?: string; append?: boolean }
  /** artifact(name, data): one artifact begun (aid: the launcher's number for it), then its bytes, then its close, answered as a call is */
  | { t: "artifact.open"; aid: number; name: string; mime?: string }
  | { t: "artifact.data"; aid: number; text?: string; b64?: string }
  | { t: "artifact.close"; id: number; aid: number }
  /** u: the script's value was undefined (JSON has no undefined, so v is null then) */
  | { t: "result"; v: unknown; u: boolean }
  | { t: "error"; e: WireError };

/** the requests beside tools/call a script makes, each a point of the gate */
export type FeatureOp = "resource.read" | "prompt.get";
const FEATURE_OPS: readonly string[] = ["resource.read", "prompt.get"];

/** what the `workspace` global does */
export type WorkspaceOp = "write" | "read" | "readBytes" | "list" | "remove";
const WORKSPACE_OPS: readonly string[] = ["write", "read", "readBytes", "list", "remove"];

/** host → launcher, on the socket: the answer to the call frame with the same id */
export type HostAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

/** a frame of a known type whose fields are wrong: dropped by the host, and said */
export interface Malformed {
  t: "malformed";
  why: string;
}

const LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;

function isWireError(v: unknown): v is WireError {
  return isRecord(v) && typeof v.name === "string" && typeof v.message === "string" && (v.data === undefined || isRecord(v.data));
}

/**
 * The host's one decoder for what follows RS + nonce: a typed message, Malformed when a known type has
 * the wrong fields, or undefined for a type this host does not know (frame types are an open set, so
 * a newer launcher's extra frames are ignored, never an error).
 */
export function decodeLauncherMessage(body: unknown): LauncherMessage | Malformed | undefined {
  if (!isRecord(body) || typeof body.t !== "string") return { t: "malformed", why: "a frame is a JSON object with a string t" };
  const b = body;
  const bad = (why: string): Malformed => ({ t: "malformed", why: `${b.t} frame: ${why}` });
  switch (b.t) {
    case "stderr":
      return typeof b.d === "string" ? { t: "stderr", d: b.d } : bad("d is not a string");
    case "log":
      if (typeof b.level !== "string" || !LEVELS.includes(b.level)) return bad(`level is not one of ${LEVELS.join(", ")}`);
      return typeof b.msg === "string" ? { t: "log", level: b.level as LogLevel, msg: b.msg } : bad("msg is not a string");
    case "emit":
      return { t: "emit", v: b.v };
    case "call":
      if (!isId(b.id)) return bad("id is not a positive integer");
      if (typeof b.server !== "string" || typeof b.tool !== "string") return bad("server and tool are not strings");
      if (b.args !== undefined && !isRecord(b.args)) return bad("args is not an object");
      return { t: "call", id: b.id, server: b.server, tool: b.tool, args: (b.args ?? {}) as Record<string, unknown> };
    case "feature":
      if (!isId(b.id)) return bad("id is not a positive integer");
      if (typeof b.op !== "string" || !FEATURE_OPS.includes(b.op)) return bad(`op is not one of ${FEATURE_OPS.join(", ")}`);
      if (typeof b.server !== "string" || typeof b.target !== "string") return bad("server and target are not strings");
      if (b.args !== undefined && !(isRecord(b.args) && Object.values(b.args).every((v) => typeof v === "string")))
        return bad("args is not an object of strings");
      return { t: "feature", id: b.id, op: b.op as FeatureOp, server: b.server, target: b.target, args: (b.args ?? {}) as Record<string, string> };
    case "workspace": {
      if (!isId(b.id)) return bad("id is not a positive integer");
      if (typeof b.op !== "string" || !WORKSPACE_OPS.includes(b.op)) return bad(`op is not one of ${WORKSPACE_OPS.join(", ")}`);
      if (typeof b.name !== "string") return bad("name is not a string");
      if ((b.text !== undefined && typeof b.text !== "string") || (b.b64 !== undefined && typeof b.b64 !== "string")) return bad("text and b64 are strings");
      const data = { ...(b.text !== undefined ? { text: b.text as string } : {}), ...(b.b64 !== undefined ? { b64: b.b64 as string } : {}) };
      return { t: "workspace", id: b.id, op: b.op as WorkspaceOp, name: b.name, ...data, ...(b.append === true ? { append: true } : {}) };
    }
    case "artifact.open":
      if (!isId(b.aid)) return bad("aid is not a positive integer");
      if (typeof b.name !== "string" || (b.mime !== undefined && typeof b.mime !== "string")) return bad("name and mime are not strings");
      return { t: "artifact.open", aid: b.aid, name: b.name, ...(b.mime !== undefined ? { mime: b.mime as string } : {}) };
    case "artifact.data":
      if (!isId(b.aid)) return bad("aid is not a positive integer");
      if (typeof b.text === "string" && b.b64 === undefined) return { t: "artifact.data", aid: b.aid, text: b.text };
      if (typeof b.b64 === "string" && b.text === undefined) return { t: "artifact.data", aid: b.aid, b64: b.b64 };
      return bad("carries one of text or b64, a string");
    case "artifact.close":
      if (!isId(b.id) || !isId(b.aid)) return bad("id and aid are not positive integers");
      return { t: "artifact.close", id: b.id, aid: b.aid };
    case "result":
      return { t: "result", v: b.v ?? null, u: b.u === true };
    case "error":
      return isWireError(b.e) ? { t: "error", e: b.e } : bad("e is not an error ({name, message})");
    default:
      return undefined;
  }
}

/** the launcher's one decoder for an answer line; undefined for a line that is not an answer */
export function decodeHostAnswer(line: string): HostAnswer | undefined {
  let a: unknown;
  try {
    a = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(a) || !isId(a.id)) return undefined;
  if (a.ok === true) return { id: a.id, ok: true, value: a.value };
  if (a.ok === false && isWireError(a.error)) return { id: a.id, ok: false, error: a.error };
  return undefined;
}

/** the launcher's decoder for the handoff; throws, naming what is wrong, because a run cannot start without it */
export function decodeHandoff(text: string): Handoff {
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    h = undefined;
  }
  const fail = (why: string): never => {
    throw new Error(`mcpx runtime: no run handed over on fd ${HANDOFF_FD} (${why}); this file is only run by mcpx`);
  };
  if (!isRecord(h)) return fail(text ? "not a JSON object" : "nothing to read");
  for (const k of ["sock", "token", "nonce", "runId"] as const) if (typeof h[k] !== "string" || h[k] === "") fail(`${k} is not a string`);
  if (typeof h.host !== "number") fail("host is not a pid");
  if (!Array.isArray(h.servers) || !h.servers.every((s) => isRecord(s) && typeof s.name === "string" && (s.global === null || typeof s.global === "string"))) {
    fail("servers is not a list of {name, global}");
  }
  const s = h.script;
  if (!isRecord(s) || typeof s.path !== "string" || typeof s.name !== "string" || !Array.isArray(s.args)) fail("script is not {path, name, args}");
  const l = h.launcher;
  if (l !== undefined && (!isRecord(l) || typeof l.path !== "string" || typeof l.url !== "string")) fail("launcher is not {path, url}");
  const e = h.env;
  if (e !== undefined && (!isRecord(e) || !Object.values(e).every((x) => typeof x === "string"))) fail("env is not an object of strings");
  return h as unknown as Handoff;
}
