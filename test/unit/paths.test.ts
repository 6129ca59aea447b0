// lib/paths: the walk-up order every "nearest first" search uses.

import { describe, expect, test } from "bun:test";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ancestors } from "../../lib/paths/ancestors.ts";
import { dirErrorLine } from "../../lib/paths/dir-errors.ts";
import { fileSignature } from "../../lib/paths/file-signature.ts";

test("ancestors: the directory itself first, then each parent, ending at the root", () => {
  expect(ancestors("/a/b/c")).toEqual(["/a/b/c", "/a/b", "/a", "/"]);
  expect(ancestors("/")).toEqual(["/"]);
  expect(ancestors("/a/b/../c/")).toEqual(["/a/c", "/a", "/"]);
});

test("fileSignature: null where nothing is, and a new one for any rewrite, even of the same size, or a file renamed over it", () => {
  const dir = mkdtempSync(join(process.env.MCPX_TEST_TMP || tmpdir(), "sig-"));
  try {
    const path = join(dir, "config.json");
    expect(fileSignature(path)).toBeNull();
    writeFileSync(path, "{}");
    const first = fileSignature(path);
    expect(first).not.toBeNull();
    expect(fileSignature(path)).toBe(first);
    writeFileSync(path, "[]");
    const rewritten = fileSignature(path);
    expect(rewritten).not.toBe(first);
    writeFileSync(join(dir, "other"), "[]");
    renameSync(join(dir, "other"), path);
    expect(fileSignature(path)).not.toBe(rewritten);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("dirErrorLine: a directory of mcpx's that cannot be written is one line with its fix", () => {
  const env = { HOME: "/h", XDG_CACHE_HOME: "/c", TMPDIR: "/t" };
  const fsError = (code: string, path: string) => Object.assign(new Error(`${code}: oops, mkdir '${path}'`), { code, path, syscall: "mkdir" });

  test("a full cache directory names the path, the cause, the variable and the fix", () => {
    expect(dirErrorLine(fsError("ENOSPC", "/c/mcpx/launch/x"), env)).toBe(
      "cannot write /c/mcpx/launch/x (ENOSPC on mkdir: the file system is full), in its cache directory (XDG_CACHE_HOME=/c): " +
        "set XDG_CACHE_HOME to a writable directory with space, or unset it",
    );
  });

  test("the fallback under TMPDIR says HOME could not hold the files, and how to choose", () => {
    expect(dirErrorLine(fsError("EROFS", "/t/mcpx-home-0-x"), { TMPDIR: "/t" })).toContain(
      "(EROFS on mkdir: the file system is read-only), in its directory in /t, used because HOME cannot hold mcpx's files: set HOME",
    );
  });

  test("an error that is not about writing, or a path outside mcpx's directories, stays a bug", () => {
    expect(dirErrorLine(fsError("ENOENT", "/c/mcpx/x"), env)).toBeUndefined();
    expect(dirErrorLine(fsError("EACCES", "/elsewhere/x"), env)).toBeUndefined();
    expect(dirErrorLine(new RangeError("Maximum call stack size exceeded."), env)).toBeUndefined();
  });
});
