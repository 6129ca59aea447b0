// lib/workspace/workspace.ts directly: names, the quota's arithmetic (a rewrite frees what it
// replaces, an append adds), removal, and a closed workspace refusing everything.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newWorkspace } from "../../lib/workspace/workspace.ts";

const root = mkdtempSync(join(tmpdir(), "mcpx-ws-unit-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const text = (t: string, append = false) => ({ text: t, ...(append ? { append } : {}) });

describe("a workspace", () => {
  test("is made at its first write, not before", () => {
    const ws = newWorkspace(root, 0);
    expect(existsSync(ws.dir)).toBe(false);
    expect(ws.op("list", "")).toEqual({ ok: true, value: [] });
    expect(ws.op("write", "a", text("1"))).toEqual({ ok: true, value: { name: "a", size: 1 } });
    expect(existsSync(ws.dir)).toBe(true);
    ws.close();
    expect(existsSync(ws.dir)).toBe(false);
  });

  test("counts a rewrite as what it replaces and an append as what it adds, against the quota", () => {
    const ws = newWorkspace(root, 10, "the test's quota");
    expect(ws.op("write", "a", text("123456")).ok).toBe(true);
    // a rewrite of the same 6 bytes frees the old 6: 6 in all, not 12
    expect(ws.op("write", "a", text("abcdef")).ok).toBe(true);
    expect(ws.op("write", "a", text("gh", true))).toEqual({ ok: true, value: { name: "a", size: 8 } });
    const over = ws.op("write", "b", text("xyz"));
    expect(over.ok).toBe(false);
    if (!over.ok) {
      expect(over.error.code).toBe("WORKSPACE_QUOTA");
      expect(over.error.message).toContain("over the test's quota (10 bytes); nothing was written");
    }
    expect(ws.op("read", "a")).toEqual({ ok: true, value: { text: "abcdefgh" } });
    expect(ws.op("remove", "a")).toEqual({ ok: true, value: true });
    expect(ws.op("write", "b", text("xyz")).ok).toBe(true);
    // no temporary file is left beside the files
    expect(readdirSync(ws.dir)).toEqual(["b"]);
    ws.close();
  });

  test("refuses names that are not one file name, and everything once closed", () => {
    const ws = newWorkspace(root, 0);
    for (const name of ["", ".", "..", ".tmp-x", "a/b", "a\\b", "a\u0000b", "a\u007fb", "é".repeat(128)]) {
      const r = ws.op("write", name, text("x"));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe("WORKSPACE");
    }
    expect(ws.op("write", "é".repeat(127), text("x")).ok).toBe(true);
    ws.close();
    const after = ws.op("list", "");
    expect(after.ok).toBe(false);
    if (!after.ok) expect(after.error.message).toContain("the workspace is gone");
  });
});
