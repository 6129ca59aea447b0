// The `workspace` global: files a script keeps out of its caller's context, in a directory the
// host owns (lib/workspace/workspace.ts). Every operation is a frame the host answers, so it works
// the same on every runtime and inside either sandbox, where the script has no file system of its
// own. Bytes cross the wire as base64 (base64.ts).

import { fromBase64, toBase64 } from "./base64.ts";
import { workspaceOp } from "./channel.ts";

/** what a write takes: a string (written as UTF-8) or bytes */
function payload(data: unknown, fn: string): { text: string } | { b64: string } {
  if (typeof data === "string") return { text: data };
  if (data instanceof Uint8Array) return { b64: toBase64(data) };
  if (data instanceof ArrayBuffer) return { b64: toBase64(new Uint8Array(data)) };
  throw new TypeError(`${fn}: data is a string, a Uint8Array or an ArrayBuffer (JSON.stringify an object first)`);
}

function name(n: unknown, fn: string): string {
  if (typeof n !== "string") throw new TypeError(`${fn}: the name is a string (one file name, no path)`);
  return n;
}

/** the global, frozen: the script may use it, not replace what it does */
export function workspaceGlobal(): Readonly<Record<string, unknown>> {
  const w = async (fn: string, op: "write", n: unknown, data: unknown, append: boolean) =>
    workspaceOp(op, name(n, fn), { ...payload(data, fn), ...(append ? { append: true } : {}) });
  return Object.freeze({
    write: (n: unknown, data: unknown) => w("workspace.write(name, data)", "write", n, data, false),
    append: (n: unknown, data: unknown) => w("workspace.append(name, data)", "write", n, data, true),
    read: async (n: unknown) => ((await workspaceOp("read", name(n, "workspace.read(name)"))) as { text: string }).text,
    readBytes: async (n: unknown) => fromBase64(((await workspaceOp("readBytes", name(n, "workspace.readBytes(name)"))) as { b64: string }).b64),
    list: () => workspaceOp("list", ""),
    remove: async (n: unknown) => workspaceOp("remove", name(n, "workspace.remove(name)")),
  });
}
