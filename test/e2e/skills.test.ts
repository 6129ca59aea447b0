// Skills through the binary: an SDK client of `mcpx serve` saves one with mcpx_save_skill, hears the
// tool list change, lists it with its own schema and calls it (its upstream calls pass the hook gate);
// `mcpx run NAME` runs one; hostile names and a symlinked skills directory never write elsewhere; a
// project's skill nobody trusted is not offered.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { trustFile } from "../../lib/trust/trust-files.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { recordPath, say } from "./hooks-support.ts";
import { mcpx, serve, writeConfig, type Served } from "./support.ts";

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const textOf = (r: Result) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");

const sb = sandbox();
const record = recordPath(sb, "skills");
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) } });
const HOOKS = [
  { name: "no-deleting", on: "call", phase: "before", when: { tool: "delete_item" }, run: say({ refuse: "deleting needs a ticket" }), effect: "refuse" },
];

const GREET = {
  name: "greet",
  description: "Greets someone through the fake server's echo tool.",
  input: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
  source: "export default async function (args: { who: string }) {\n  const r = await fake.echo({ message: `hello ${args.who}` });\n  return r;\n}\n",
};
const DELETE = {
  name: "wipe",
  description: "Deletes an item through the fake server (a hook refuses it).",
  input: { type: "object", properties: { id: { type: "string" } } },
  source: "export default async function (args: { id: string }) {\n  return await fake.delete_item({ id: args.id });\n}\n",
};

let s: Served;
beforeAll(async () => {
  s = await serve(sb, { MCPX_HOOKS: JSON.stringify(HOOKS) });
});
afterAll(async () => {
  await s?.close();
});
const call = async (name: string, args: Record<string, unknown>) => (await s.client.callTool({ name, arguments: args })) as Result;

describe("mcpx_save_skill on mcpx serve", () => {
  test("a saved skill is announced as a tool list change, then listed with its schema and callable", async () => {
    let changed = 0;
    const heard = new Promise<void>((resolve) =>
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed++;
        resolve();
      }),
    );
    const saved = await call("mcpx_save_skill", GREET);
    expect(textOf(saved)).toContain("skill_greet");
    expect(saved.isError).toBeFalsy();
    await heard;
    expect(changed).toBe(1);
    expect(existsSync(join(sb.dir, ".mcpx/skills/greet.ts"))).toBe(true);
    // no temp file is left beside it
    expect(readdirSync(join(sb.dir, ".mcpx/skills"))).toEqual(["greet.ts"]);

    const tool = (await s.client.listTools()).tools.find((t) => t.name === "skill_greet")!;
    expect(tool.description).toBe(GREET.description);
    expect(tool.inputSchema).toEqual(GREET.input as never);

    const r = await call("skill_greet", { who: "Ada" });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("hello Ada");
    expect(recordedCalls(record, "echo").length).toBe(1);
  });

  test("a skill's arguments are checked against its input schema before it runs: a missing or mistyped one is refused by name", async () => {
    await call("mcpx_save_skill", GREET);
    const before = recordedCalls(record, "echo").length;
    const missing = await call("skill_greet", {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('skill_greet refuses these arguments: argument "who" is required');
    const mistyped = await call("skill_greet", { who: 42 });
    expect(mistyped.isError).toBe(true);
    expect(textOf(mistyped)).toContain("who");
    expect(recordedCalls(record, "echo").length).toBe(before);
  });

  test("a skill's upstream call passes the gate: a refusing call.before hook refuses it and the server never sees it", async () => {
    expect((await call("mcpx_save_skill", DELETE)).isError).toBeFalsy();
    const r = await call("skill_wipe", { id: "x1" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("deleting needs a ticket");
    expect(recordedCalls(record, "delete_item")).toEqual([]);
  });

  test("a skill runs sandboxed by serve's default: reading a file throws NotCapable", async () => {
    const source = 'import { readFileSync } from "node:fs";\nexport default async function () {\n  return readFileSync("/etc/passwd", "utf8");\n}\n';
    expect((await call("mcpx_save_skill", { ...GREET, name: "peek", source })).isError).toBeFalsy();
    const r = await call("skill_peek", { who: "x" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("NotCapable");
    expect(textOf(r)).not.toContain("root:");
  });

  test("a name with a path in it, an absolute path or capitals is refused naming the accepted form, and nothing is written", async () => {
    for (const name of ["../evil", "/tmp/evil", "a/b", "Evil", "", "x".repeat(49), "skill.ts"]) {
      const r = await call("mcpx_save_skill", { ...GREET, name });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain("1 to 48 of a-z, 0-9, _ and -");
    }
    expect(existsSync(join(sb.dir, "evil.ts"))).toBe(false);
    expect(existsSync(join(sb.dir, ".mcpx/evil.ts"))).toBe(false);
    expect(readdirSync(join(sb.dir, ".mcpx/skills")).sort()).toEqual(["greet.ts", "peek.ts", "wipe.ts"]);
  });

  test("a link at the skill's name is replaced by the skill, and the file it pointed at is left as it was", async () => {
    const outside = join(sb.dir, "outside.txt");
    writeFileSync(outside, "keep me\n");
    symlinkSync(outside, join(sb.dir, ".mcpx/skills/linked.ts"));
    expect((await call("mcpx_save_skill", { ...GREET, name: "linked" })).isError).toBeFalsy();
    expect(readFileSync(outside, "utf8")).toBe("keep me\n");
    expect(lstatSync(join(sb.dir, ".mcpx/skills/linked.ts")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(sb.dir, ".mcpx/skills/linked.ts"), "utf8")).toContain("hello ${args.who}");
  });

  test("an input that is not an object schema and a source without a default export are refused", async () => {
    expect(textOf(await call("mcpx_save_skill", { ...GREET, name: "bad1", input: { type: "string" } }))).toContain('"type": "object"');
    expect(textOf(await call("mcpx_save_skill", { ...GREET, name: "bad2", source: "const x = 1;" }))).toContain("export default");
    expect(existsSync(join(sb.dir, ".mcpx/skills/bad1.ts"))).toBe(false);
  });
});

describe("mcpx run NAME", () => {
  test("runs a skill with its arguments as one JSON object", async () => {
    const r = await mcpx(sb, ["run", "greet", '{"who": "Grace"}'], { env: { MCPX_HOOKS: "[]" } });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("hello Grace");
    expect(r.code).toBe(0);
  });

  test("a skill's arguments that are not one JSON object are a usage error saying the form", async () => {
    const r = await mcpx(sb, ["run", "greet", "Grace"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("a skill takes its arguments as one JSON object");
  });
});

describe("skills that must not become tools", () => {
  test("a project's skill file nobody trusted is not offered, and is once trusted", async () => {
    const other = sandbox();
    writeConfig(other, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    other.write(
      ".mcpx/skills/cloned.ts",
      `export const description = "came with the repo";\nexport const input = {"type":"object"};\nexport default async () => 1;\n`,
    );
    const served = await serve(other);
    try {
      const names = (await served.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("skill_cloned");
      const r = (await served.client.callTool({ name: "skill_cloned", arguments: {} })) as Result;
      expect(r.isError).toBe(true);
      expect(served.stderr()).toContain("cloned.ts is not offered: a project's skill runs only once trusted (mcpx trust ");
      trustFile(other.env, other.dir, join(other.dir, ".mcpx/skills/cloned.ts"));
      expect((await served.client.listTools()).tools.map((t) => t.name)).toContain("skill_cloned");
    } finally {
      await served.close();
    }
  });

  test("a symlinked skills directory is refused: the skill is not written where the link points", async () => {
    const other = sandbox();
    const elsewhere = join(other.dir, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(join(other.dir, ".mcpx"));
    symlinkSync(elsewhere, join(other.dir, ".mcpx/skills"));
    writeFileSync(join(other.dir, ".mcpx.json"), "{}");
    trustFile(other.env, other.dir, join(other.dir, ".mcpx.json"));
    const served = await serve(other);
    try {
      const r = (await served.client.callTool({ name: "mcpx_save_skill", arguments: GREET })) as Result;
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain("symbolic link");
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      await served.close();
    }
  });
});
