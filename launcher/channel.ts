// The call channel: opened at the first call, so a script that calls nothing never pays for it. A
// call's request travels on fd 1 as a frame; its answer comes back on the run's unix socket.

import { g } from "./globals.ts";
import { callFrame, frame, info, sys } from "./handoff.ts";
import { reviveError } from "./serialize.ts";
import type { Conn } from "./sys.ts";
import { unwrap } from "./unwrap.ts";
import { decodeHostAnswer, type FeatureOp, type HostAnswer, type WorkspaceOp } from "./wire.ts";

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
export function feature(op: FeatureOp, server: unknown, target: unknown, args?: unknown): Promise<unknown> {
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

/**
 * One operation of the `workspace` global: a frame the host answers at once from the run's workspace
 * (lib/workspace/workspace.ts checks the name and the quota). `data`: text, or bytes as base64.
 */
export function workspaceOp(op: WorkspaceOp, name: string, data?: { text?: string; b64?: string; append?: boolean }): Promise<unknown> {
  const c = open;
  if (!c) return channel().then(() => workspaceOp(op, name, data));
  if (pending.size === 0) c.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, server: "workspace", tool: op });
    frame({ t: "workspace", id, op, name, ...data });
  });
}

/** an artifact's close: answered, once its bytes are stored, with what the host made of it */
export function artifactClose(aid: number): Promise<unknown> {
  const c = open;
  if (!c) return channel().then(() => artifactClose(aid));
  if (pending.size === 0) c.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, server: "artifact", tool: String(aid) });
    frame({ t: "artifact.close", id, aid });
  });
}

export function callTool(server: string, tool: string, args?: unknown, opts?: { raw?: boolean }): Promise<unknown> {
  const calling = rawCall(server, tool, args);
  return opts?.raw ? calling : calling.then(unwrap);
}

export function namespace(server: string): Record<string, unknown> {
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

/** lets the channel go once the run is over; a run that never called has none */
export function endChannel(): void {
  void conn?.then((c) => c.end());
}
