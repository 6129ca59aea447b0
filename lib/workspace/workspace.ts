// A workspace: a directory of flat files a script keeps data in through mcpx (the `workspace`
// global: write, read, readBytes, list, remove), so that an agent can leave a 3 MB file or a
// half-way result out of its context and pick it up in its next run. An agent session has one
// (mcpx serve's process, a /mcp session: lib/mcpserver/agent-session.ts), removed with the session;
// any other run has its own, removed when the run ends. Every operation is done here, by the host,
// for both sandbox engines and unsandboxed runtimes alike: the script gets no file system, only
// names checked below, within the quota (exec.workspaceQuota). The directory is made at the first
// write, so a run that never uses it pays nothing.

import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { ErrorCode } from "../errors/codes.ts";
import { frameError } from "../errors/frame-error.ts";
import type { CallAnswer } from "../runtime/run-spec.ts";
import type { WorkspaceOp } from "../../launcher/wire.ts";
import { badFileName } from "../paths/file-name.ts";
import { running } from "../process/proc-table.ts";
import { randomHex } from "../util/random-bytes.ts";

export interface Workspace {
  /** the directory; it exists once something was written */
  readonly dir: string;
  /** one operation of the script's `workspace` global, answered as a call is */
  op(op: WorkspaceOp, name: string, data?: { text?: string; b64?: string; append?: boolean }): CallAnswer;
  /** removes the directory and everything in it; later operations fail */
  close(): void;
}

/**
 * A workspace under `root` (made private, 0700), holding at most `quotaBytes` (0 = no limit);
 * `quotaFrom` is the setting an over-quota error names. Directories of processes that died without
 * removing theirs are removed at the first write, since a killed process cannot.
 */
export function newWorkspace(root: string, quotaBytes: number, quotaFrom = "exec.workspaceQuota"): Workspace {
  const dir = join(root, `${process.pid}-${randomHex(6)}`);
  const sizes = new Map<string, number>();
  let made = false;
  let closed = false;
  const total = () => {
    let n = 0;
    for (const s of sizes.values()) n += s;
    return n;
  };
  const fail = (message: string, why: Extract<ErrorCode, "WORKSPACE" | "WORKSPACE_QUOTA"> = "WORKSPACE"): CallAnswer => ({
    ok: false,
    error: frameError(why, message),
  });

  function write(name: string, bytes: Buffer, append: boolean): CallAnswer {
    const before = sizes.get(name) ?? 0;
    const after = append ? before + bytes.length : bytes.length;
    const used = total() - before + after;
    if (quotaBytes > 0 && used > quotaBytes)
      return fail(
        `workspace.write(${JSON.stringify(name)}): ${after} bytes would fill the workspace to ${used} bytes, over ${quotaFrom} ` +
          `(${quotaBytes} bytes); nothing was written. Remove files (workspace.remove) or write less`,
        "WORKSPACE_QUOTA",
      );
    if (!made) {
      removeOrphans(root);
      mkdirSync(root, { recursive: true, mode: 0o700 });
      mkdirSync(dir, { mode: 0o700 });
      made = true;
    }
    // written beside and renamed over: a reader never sees half a file, and a link in its place is replaced, not followed
    const tmp = join(dir, `.tmp-${randomHex(6)}`);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      if (append && before > 0) writeAll(fd, readNoFollow(join(dir, name)));
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(dir, name));
    sizes.set(name, after);
    return { ok: true, value: { name, size: after } };
  }

  return {
    dir,
    op(op, name, data) {
      if (closed) return fail(`the workspace is gone: its session ended`);
      if (op === "list") return { ok: true, value: [...sizes].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, size]) => ({ name: n, size })) };
      const bad = badFileName(name, "a workspace name");
      if (bad) return fail(`workspace.${op}: ${bad}`);
      try {
        switch (op) {
          case "write": {
            const bytes = data?.b64 !== undefined ? Buffer.from(data.b64, "base64") : Buffer.from(data?.text ?? "", "utf8");
            return write(name, bytes, data?.append === true);
          }
          case "read":
          case "readBytes": {
            if (!sizes.has(name)) return fail(`workspace.${op}(${JSON.stringify(name)}): no such file (workspace.list() names what there is)`);
            const bytes = readNoFollow(join(dir, name));
            return { ok: true, value: op === "read" ? { text: bytes.toString("utf8") } : { b64: bytes.toString("base64") } };
          }
          case "remove": {
            const had = sizes.delete(name);
            if (had) rmSync(join(dir, name), { force: true });
            return { ok: true, value: had };
          }
        }
      } catch (err) {
        return fail(`workspace.${op}(${JSON.stringify(name)}): ${(err as Error).message}`);
      }
    },
    close() {
      closed = true;
      sizes.clear();
      if (made) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
}

/** a regular file's bytes, never through a symbolic link */
function readNoFollow(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** removes the workspaces of processes that are gone (named PID-RANDOM) */
function removeOrphans(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(/^(\d+)-[0-9a-f]{12}$/.exec(n)?.[1]);
    if (pid && pid !== process.pid && !running(pid)) rmSync(join(root, n), { recursive: true, force: true });
  }
}
