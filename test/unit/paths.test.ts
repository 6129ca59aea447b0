// lib/paths: the walk-up order every "nearest first" search uses.

import { expect, test } from "bun:test";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ancestors } from "../../lib/paths/ancestors.ts";
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
