// mcpx resource and mcpx prompt through the binary: against server-everything (resources, templates
// and prompts as it documents them) and the fake server's FAKE_MCP_FEATURES (a blob of known bytes,
// a recorded read), with the errors of each: an unknown server (exit 2, did-you-mean), an unknown
// URI or prompt (the server's error, exit 1), a missing required argument (exit 2, named), and a
// blob that is never dumped. mcpx ls shows the counts.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { recordedReads } from "../../fixtures/servers/record.ts";
import { everythingServer, fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";
import { recordPath, say } from "./hooks-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { everything: everythingServer(), fake: fakeServer({ FAKE_MCP_FEATURES: "1" }), plain: fakeServer() } });
const STATIC = "demo://resource/static/document/architecture.md";

describe.concurrent("mcpx resource", () => {
  test("with remote on and no daemon to start, mcpx resource and mcpx prompt exit 2 rather than run here", async () => {
    for (const argv of [
      ["resource", "fake"],
      ["prompt", "fake"],
    ]) {
      const r = await mcpx(sb, argv, { env: { MCPX_REMOTE: "1", MCPX_DAEMON_AUTO_START: "0" } });
      expectExit(r, 2);
      expect(r.stderr).toContain("start one with `mcpx daemon start`");
      expect(r.stderr).not.toContain("runs here");
      expect(r.stdout).toBe("");
    }
  });

  test("mcpx resource everything lists its resources and then its templates, one tab-separated row each (uri, name, MIME type, description)", async () => {
    const r = await mcpx(sb, ["resource", "everything"]);
    expectExit(r, 0);
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(rows.every((row) => row.length === 4)).toBe(true);
    expect(rows.map((row) => row[0])).toContain(STATIC);
    expect(rows.find((row) => row[0] === STATIC)![2]).toBe("text/markdown");
    expect(rows.map((row) => row[0])).toContain("demo://resource/dynamic/text/{resourceId}");
  });

  test("mcpx resource everything --json gives {resources, resourceTemplates} as the server listed them", async () => {
    const r = await mcpx(sb, ["resource", "everything", "--json"]);
    expectExit(r, 0);
    const j = JSON.parse(r.stdout) as { resources: Array<{ uri: string }>; resourceTemplates: Array<{ uriTemplate: string }> };
    expect(j.resources.map((x) => x.uri)).toContain(STATIC);
    expect(j.resourceTemplates.map((x) => x.uriTemplate)).toContain("demo://resource/dynamic/blob/{resourceId}");
  });

  test("mcpx resource everything URI prints a text resource's text on stdout", async () => {
    const r = await mcpx(sb, ["resource", "everything", STATIC]);
    expectExit(r, 0);
    expect(r.stdout).toContain("Architecture");
  });

  test("a URI filled in from a template is read like any other", async () => {
    const r = await mcpx(sb, ["resource", "fake", "fake://items/42"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("item 42\n");
  });

  test("a blob goes to -o FILE byte for byte, and stdout says where it went", async () => {
    const file = join(sb.dir, "blob.bin");
    const r = await mcpx(sb, ["resource", "fake", "fake://blob", "-o", file]);
    expectExit(r, 0);
    expect([...readFileSync(file)]).toEqual([0, 1, 2, 255]);
    expect(r.stdout).toBe(`[blob fake://blob application/octet-stream, 4 bytes, written to ${file}]\n`);
  });

  test("a blob without -o on a stdout that is not a terminal is never dumped: exit 2, saying -o FILE or --json", async () => {
    const r = await mcpx(sb, ["resource", "fake", "fake://blob"]);
    expectExit(r, 2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("-o FILE");
    expect(r.stderr).toContain("--json");
  });

  test("--json gives a blob as the server sent it, base64", async () => {
    const r = await mcpx(sb, ["resource", "fake", "fake://blob", "--json"]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).contents[0].blob).toBe(Buffer.from([0, 1, 2, 255]).toString("base64"));
  });

  test("-o with a text resource is an error that says so, and writes nothing", async () => {
    const r = await mcpx(sb, ["resource", "fake", "fake://note", "-o", join(sb.dir, "never.txt")]);
    expectExit(r, 2);
    expect(r.stderr).toContain("no blob contents");
  });

  test("an unknown server exits 2 with a did-you-mean, starting nothing", async () => {
    const r = await mcpx(sb, ["resource", "everythin"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('unknown server "everythin" (did you mean everything?)');
  });

  test("an unknown URI is the server's error: exit 1, naming the URI", async () => {
    const r = await mcpx(sb, ["resource", "everything", "demo://no/such/thing"]);
    expectExit(r, 1);
    expect(r.stderr).toContain('resources/read "demo://no/such/thing"');
    expect(r.stderr).toContain("not found");
  });

  test("a server that offers no resources lists none, and is not asked", async () => {
    const r = await mcpx(sb, ["resource", "plain", "--json"]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ resources: [], resourceTemplates: [] });
  });

  test("a resource.read hook that refuses keeps the read from the server: exit 1, the hook named", async () => {
    const record = recordPath(sb);
    const hooks = [
      { name: "no-notes", on: "resource.read", phase: "before", when: { uri: "fake://note" }, run: say({ refuse: "notes are private" }), effect: "refuse" },
    ];
    const r = await mcpx(sb, ["resource", "fake", "fake://note"], { env: { MCPX_HOOKS: JSON.stringify(hooks), FAKE_MCP_RECORD: record } });
    expectExit(r, 1);
    expect(r.stderr).toContain("refused by hook no-notes: notes are private");
    expect(recordedReads(record)).toEqual([]);
  });
});

describe.concurrent("mcpx prompt", () => {
  test("mcpx prompt everything lists its prompts with their arguments, the required ones marked", async () => {
    const r = await mcpx(sb, ["prompt", "everything"]);
    expectExit(r, 0);
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(rows.find((row) => row[0] === "args-prompt")?.[1]).toBe("city=… (required) state=…");
    expect(rows.map((row) => row[0])).toContain("simple-prompt");
  });

  test("mcpx prompt everything NAME key=value prints the messages, each after its role", async () => {
    const r = await mcpx(sb, ["prompt", "everything", "args-prompt", "city=Paris"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("[user]\nWhat's weather in Paris?\n");
  });

  test("a message that embeds a resource is named, its text shown", async () => {
    const r = await mcpx(sb, ["prompt", "everything", "resource-prompt", "resourceType=Text", "resourceId=2"]);
    expectExit(r, 0);
    expect(r.stdout).toContain("[resource demo://resource/dynamic/text/2 text/plain]");
  });

  test("--json prints the raw prompts/get result", async () => {
    const r = await mcpx(sb, ["prompt", "fake", "greet", "name=Ada", "tone=warmly", "--json"]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).messages).toEqual([{ role: "user", content: { type: "text", text: "Hello Ada, warmly" } }]);
  });

  test("a missing required argument exits 2 naming it, and the server is never asked", async () => {
    const record = recordPath(sb);
    const r = await mcpx(sb, ["prompt", "fake", "greet", "tone=warmly"], { env: { FAKE_MCP_RECORD: record } });
    expectExit(r, 2);
    expect(r.stderr).toContain("missing required argument name");
    expect(recordedReads(record)).toEqual([]);
  });

  test("an argument the prompt does not take exits 2 with a did-you-mean and the ones it takes", async () => {
    const r = await mcpx(sb, ["prompt", "everything", "args-prompt", "citty=Paris"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('no argument "citty" (did you mean city?): it takes city, state');
  });

  test("an unknown prompt is the server's error: exit 1, naming it", async () => {
    const r = await mcpx(sb, ["prompt", "everything", "no-such-prompt"]);
    expectExit(r, 1);
    expect(r.stderr).toContain('prompts/get "no-such-prompt"');
  });

  test("an unknown server exits 2 with a did-you-mean", async () => {
    const r = await mcpx(sb, ["prompt", "evrything"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("did you mean everything?");
  });

  test("a prompt.get.before hook's apply rewrites the arguments the server gets", async () => {
    const record = recordPath(sb);
    const hooks = [{ name: "rename", on: "prompt.get", phase: "before", run: say({ apply: { name: "Grace" } }), effect: "apply" }];
    const r = await mcpx(sb, ["prompt", "fake", "greet", "name=Ada"], { env: { MCPX_HOOKS: JSON.stringify(hooks), FAKE_MCP_RECORD: record } });
    expectExit(r, 0);
    expect(r.stdout).toBe("[user]\nHello Grace\n");
    expect(recordedReads(record)).toMatchObject([{ method: "prompts/get", name: "greet", args: { name: "Grace" } }]);
  });
});

describe.concurrent("mcpx ls counts", () => {
  test("mcpx ls shows each server's resources, templates and prompts beside its tools; one with none shows its tools alone", async () => {
    const r = await mcpx(sb, ["ls"]);
    expectExit(r, 0);
    const what = Object.fromEntries(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("\t").slice(0, 2) as [string, string]),
    );
    expect(what.everything).toMatch(/^\d+ tools, 7 resources, 2 templates, 4 prompts$/);
    expect(what.fake).toMatch(/^\d+ tools, 2 resources, 1 template, 1 prompt$/);
    expect(what.plain).toMatch(/^\d+ tools$/);
  });

  test("mcpx ls --json gives the counts as numbers on each row", async () => {
    const r = await mcpx(sb, ["ls", "--json"]);
    expectExit(r, 0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.find((x) => x.server === "fake")).toMatchObject({ resources: 2, resourceTemplates: 1, prompts: 1 });
    expect(rows.find((x) => x.server === "plain")).toMatchObject({ resources: 0, resourceTemplates: 0, prompts: 0 });
  });
});

describe.concurrent("scripts and mcpx types", () => {
  test("a script reads everything's resource and gets its prompt through resources.read and prompts.get, as raw MCP results", async () => {
    const source = [
      `const r = await resources.read("everything", ${JSON.stringify(STATIC)});`,
      'const p = await prompts.get("everything", "args-prompt", { city: "Oslo" });',
      "return { mime: r.contents[0].mimeType, head: r.contents[0].text.slice(0, 40), said: p.messages[0].content.text }",
    ].join("\n");
    const r = await mcpx(sb, ["exec", source]);
    expectExit(r, 0);
    const v = JSON.parse(r.stdout);
    expect(v.mime).toBe("text/markdown");
    expect(v.head).toContain("Architecture");
    expect(v.said).toBe("What's weather in Oslo?");
  });

  test("a script's bad arguments to prompts.get are a TypeError naming the function, and nothing is sent", async () => {
    const r = await mcpx(sb, ["exec", 'try { await prompts.get("fake", "greet", { name: 1 }) } catch (e) { console.log(e.name, e.message) }']);
    expectExit(r, 0);
    expect(r.stdout).toContain("TypeError prompts.get(server, name, args): args is an object of strings");
  });

  test("mcpx types SERVER names the typed functions that read its resources and prompts; a server with none gets no such line", async () => {
    const [everything, plain] = await Promise.all([mcpx(sb, ["types", "everything"]), mcpx(sb, ["types", "plain"])]);
    expectExit(everything, 0);
    expect(everything.stdout).toContain('resources.read("everything", uri): Promise<McpxResourceResult>');
    expect(everything.stdout).toContain('prompts.get("everything", name, args?): Promise<McpxPromptResult>');
    expectExit(plain, 0);
    expect(plain.stdout).not.toContain("resources.read");
  });
});
