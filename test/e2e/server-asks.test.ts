// What an upstream server asks of mcpx (elicitation, sampling, roots) reaches someone: the person at
// the terminal (a pseudo-terminal from util-linux `script`), the client of `mcpx serve`, or nobody,
// and then nothing is declared and a server that asks anyway is declined with one line saying how
// to answer. server-everything shows what a published server hides from a client that cannot
// answer; fixtures/servers/asking-server.ts asks whatever mcpx declared.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BUN, MCPX, ROOT, everythingServer, sandbox, type Sandbox } from "./harness.ts";
import { mcpx, writeConfig } from "./support.ts";
import { onTerminal } from "./pty.ts";
import { execFrames, startDaemon, stopDaemons } from "./daemon-support.ts";

const ASKING = { command: BUN, args: [join(ROOT, "fixtures/servers/asking-server.ts")] };
const MODERN = { command: BUN, args: [join(ROOT, "fixtures/servers/modern-server.ts")], protocolVersion: "2026-07-28" };

function configured(extra: Record<string, unknown> = {}): Sandbox {
  const sb = sandbox();
  writeConfig(sb, ".mcpx.json", { mcpServers: { everything: everythingServer(), asking: ASKING, modern: MODERN, ...extra } });
  return sb;
}

const sb = configured();
const rootUri = pathToFileURL(sb.dir).href;

describe("on a terminal, the person answers", () => {
  test("server-everything's form reaches the person field by field, and the typed name and the defaults reach the server", async () => {
    const enter = (shows: string): [string, string] => [shows, "\r"];
    const { shown, code, unmet } = await onTerminal(
      sb.dir,
      sb.env,
      [MCPX, "call", "everything.trigger-elicitation-request"],
      [
        enter("Please provide inputs"),
        ["Your full, legal name", "Ada Lovelace\r"],
        enter("Agree to the terms"),
        enter("Favorite first line"),
        enter("Your email address"),
        enter("Portfolio"),
        enter("Your date of birth"),
        enter("Your favorite integer"),
        enter("Favorite number"),
        enter("favorite friend"),
        enter("favorite instruments"),
        enter("favorite hero"),
        enter("favorite types of fish"),
        enter("favorite type of pet"),
      ],
    );
    expect(unmet).toBeUndefined();
    expect(shown).toContain("everything asks: Please provide inputs");
    expect(shown).toContain("- Name: Ada Lovelace");
    // the schema's defaults, taken with Enter (SEP-1034): a default not applied would leave these out
    expect(shown).toContain("- Favorite Integer: 42");
    expect(shown).toContain("- Favorite Number: 3.14");
    expect(shown).toContain('"untitledSingleSelectEnum": "Monica"');
    expect(code).toBe(0);
  }, 60_000);

  test("a URL elicitation shows the URL and, once the person says they are done, the server hears accept", async () => {
    const { shown, code, unmet } = await onTerminal(
      sb.dir,
      sb.env,
      [MCPX, "call", "everything.trigger-url-elicitation", "url=https://example.com/consent", "message=Grant access"],
      [["Done with https://example.com/consent?", "\r"]],
    );
    expect(unmet).toBeUndefined();
    expect(shown).toContain("everything asks you to open this URL: Grant access");
    expect(shown).toContain("User completed the URL elicitation flow");
    expect(code).toBe(0);
  }, 60_000);

  test("a 2026-07-28 server's input_required elicitation reaches the person too, and its roots request gets the run's directory", async () => {
    const { shown, code, unmet } = await onTerminal(
      sb.dir,
      sb.env,
      [MCPX, "call", "modern.greet"],
      [
        ["modern asks: Who are you?", "\r"],
        ["Name", "Ada\r"],
        ["Greeting (optional) [Hello]", "\r"],
      ],
    );
    expect(unmet).toBeUndefined();
    expect(shown).toContain(`Hello, Ada (roots: ${rootUri})`);
    expect(code).toBe(0);
  }, 60_000);

  test("a script's call asks too (mcpx exec): the typed name and the pre-filled defaults reach the server", async () => {
    const { shown, unmet } = await onTerminal(
      sb.dir,
      sb.env,
      [MCPX, "exec", "console.log(JSON.stringify(await asking.ask_form({})))"],
      [
        ["asking asks: Tell us about you", "\r"],
        ["Name: Your name", "Ada\r"],
        ["Age (optional) [30]", "\r"],
        ["Color (optional)", "\r"],
        ["Subscribe (optional)", "\r"],
      ],
    );
    expect(unmet).toBeUndefined();
    expect(shown).toContain('{"action":"accept","content":{"name":"Ada","age":30,"color":"blue","subscribe":false}}');
  }, 60_000);

  test("mcpx ls on a terminal lists the elicitation tools that mcpx call there can answer", async () => {
    const { shown, code } = await onTerminal(sb.dir, sb.env, [MCPX, "ls", "everything"], []);
    expect(shown).toContain("trigger-elicitation-request");
    expect(shown).toContain("trigger-url-elicitation");
    expect(code).toBe(0);
  }, 60_000);

  test("declining at the first question sends decline, with no field asked", async () => {
    const { shown, unmet } = await onTerminal(sb.dir, sb.env, [MCPX, "call", "asking.ask_form"], [["asking asks: Tell us about you", "\x1b[B\r"]]);
    expect(unmet).toBeUndefined();
    expect(shown).toContain('"action": "decline"');
    expect(shown).not.toContain("Your name");
  }, 60_000);
});

describe("where nobody can answer", () => {
  test("elicitation is not declared, so server-everything does not list its elicitation tool", async () => {
    const r = await mcpx(sb, ["ls", "everything"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("get-roots-list");
    expect(r.stdout).not.toContain("trigger-elicitation-request");
    expect(r.stdout).not.toContain("trigger-sampling-request");
  }, 60_000);

  test("a server that asks anyway is declined, and stderr says in one line which server asked and how to answer", async () => {
    const caps = await mcpx(sb, ["call", "asking.caps", "--json"]);
    expect(caps.stdout).not.toContain("elicitation");
    const r = await mcpx(sb, ["call", "asking.ask_form"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ action: "decline" });
    const lines = r.stderr.split("\n").filter((l) => l.includes("elicitation"));
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("asking");
    expect(lines[0]).toContain("run the command on a terminal");
  }, 60_000);

  test("a server's sampling request gets an error saying mcpx has no model and that mcpx serve forwards it", async () => {
    const r = await mcpx(sb, ["call", "asking.ask_model", "prompt=hi"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("mcpx has no model to ask");
    expect(r.stderr).toContain("mcpx serve");
  }, 60_000);
});

describe("roots", () => {
  test("server-everything's get-roots-list shows the run's working directory as a file:// URI", async () => {
    const r = await mcpx(sb, ["call", "everything.get-roots-list"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`URI: ${rootUri}`);
    expect(r.stdout).toContain("1 total");
  }, 60_000);

  test('an entry with "roots": false is offered no roots, and a roots/list from it is refused naming the key', async () => {
    const off = configured({ everything: { ...everythingServer(), roots: false }, asking: { ...ASKING, roots: false } });
    const ls = await mcpx(off, ["ls", "everything"]);
    expect(ls.stdout).not.toContain("get-roots-list");
    const r = await mcpx(off, ["call", "asking.roots"]);
    expect(r.stderr).toContain('"roots": false');
  }, 60_000);

  test("a roots value that is not a boolean leaves the entry broken, naming the key and what it takes", async () => {
    const bad = configured({ asking: { ...ASKING, roots: "no" } });
    const r = await mcpx(bad, ["call", "asking.caps"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("mcpServers.asking.roots: must be true or false");
  }, 60_000);
});

/** `mcpx serve` driven by an SDK client that declares `capabilities` and answers with these handlers */
async function servedBy(dir: Sandbox, capabilities: Record<string, unknown>, answers: boolean) {
  const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: dir.dir, env: dir.env, stderr: "pipe" });
  const client = new Client({ name: "serve-asks-e2e", version: "0" }, { capabilities });
  const asked: unknown[] = [];
  if (answers) {
    client.setRequestHandler(ElicitRequestSchema, (r) => {
      asked.push(r.params);
      return { action: "accept", content: { name: "Grace", age: 85 } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, (r) => {
      asked.push(r.params);
      return { role: "assistant", model: "test-model", content: { type: "text", text: "a sampled answer" } };
    });
  }
  await client.connect(transport);
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name: "mcpx_call", arguments: { server: "asking", tool, args } })) as CallToolResult;
    return r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  };
  return { client, call, asked };
}

describe("through mcpx serve", () => {
  const served = configured();
  let offering: Awaited<ReturnType<typeof servedBy>>;
  beforeAll(async () => {
    offering = await servedBy(served, { elicitation: {}, sampling: {} }, true);
  });
  afterAll(async () => {
    await offering?.client.close();
  });

  test("a client that offers elicitation and sampling gets both declared upstream", async () => {
    const caps = JSON.parse(await offering.call("caps"));
    expect(caps.elicitation).toBeDefined();
    expect(caps.sampling).toBeDefined();
  }, 60_000);

  test("an upstream elicitation is forwarded to the client and its answer reaches the server", async () => {
    const text = await offering.call("ask_form", { message: "who are you?" });
    expect(JSON.parse(text)).toEqual({ action: "accept", content: { name: "Grace", age: 85 } });
    expect(offering.asked).toContainEqual(expect.objectContaining({ message: "who are you?" }));
  }, 60_000);

  test("an upstream sampling request is forwarded to the client and its model's answer reaches the server", async () => {
    const text = await offering.call("ask_model", { prompt: "say something" });
    expect(JSON.parse(text)).toMatchObject({ model: "test-model", content: { text: "a sampled answer" } });
  }, 60_000);

  test("a client that declares neither gets neither declared upstream", async () => {
    const plain = await servedBy(configured(), {}, false);
    try {
      const caps = JSON.parse(await plain.call("caps"));
      expect(caps.elicitation).toBeUndefined();
      expect(caps.sampling).toBeUndefined();
      expect(caps.roots).toBeDefined();
    } finally {
      await plain.client.close();
    }
  }, 60_000);

  test("an agent's cwd for mcpx_exec does not become a root: the server sees only serve's own directory", async () => {
    // server-filesystem replaces its allowed directories with the client's roots: a root an agent
    // could choose would widen what that server lets it touch
    mkdirSync(join(served.dir, "elsewhere"), { recursive: true });
    const r = (await offering.client.callTool({
      name: "mcpx_exec",
      arguments: { source: "console.log(JSON.stringify(await asking.roots()))", cwd: "elsewhere" },
    })) as CallToolResult;
    const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text).toContain(pathToFileURL(served.dir).href);
    expect(text).not.toContain("elsewhere");
  }, 60_000);
});

describe("through the daemon", () => {
  afterAll(stopDaemons);

  test("a caller's cwd for /v1/exec does not become a root: the server sees only the daemon's own directory", async () => {
    const d = configured();
    mkdirSync(join(d.dir, "elsewhere"), { recursive: true });
    const daemon = await startDaemon(d);
    const frames = await execFrames(daemon, { source: "console.log(JSON.stringify(await asking.roots()))", cwd: join(d.dir, "elsewhere") });
    const said = JSON.stringify(frames);
    expect(said).toContain(pathToFileURL(d.dir).href);
    expect(said).not.toContain("elsewhere");
  }, 60_000);

  test("the daemon declares neither elicitation nor sampling: nobody is there to answer", async () => {
    const d = configured();
    const daemon = await startDaemon(d);
    const frames = await execFrames(daemon, { source: "console.log(JSON.stringify(await asking.caps()))" });
    const said = JSON.stringify(frames);
    expect(said).toContain("roots");
    expect(said).not.toContain("elicitation");
    expect(said).not.toContain("sampling");
  }, 60_000);
});
