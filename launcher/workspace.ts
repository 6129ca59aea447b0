// The `workspace` global: files a script keeps out of its caller's context, in a directory the
// host owns (lib/workspace/workspace.ts). Every operation is a frame the host answers, so it works
// the same on every runtime and inside either sandbox, where the script has no file system of its
// own. Bytes cross the wire as base64, coded here because QuickJS has no atob/btoa or Buffer.

import { workspaceOp } from "./channel.ts";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < bytes.length ? B64[(n >> 6) & 63]! : "=") + (i + 2 < bytes.length ? B64[n & 63]! : "=");
  }
  return out;
}

function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/=+$/, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let j = 0;
  for (let i = 0; i < clean.length; i++) {
    acc = (acc << 6) | B64.indexOf(clean[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >> bits) & 255;
    }
  }
  return out;
}

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
