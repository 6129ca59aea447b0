// `mcpx ls --remote`, `mcpx types --remote` and `mcpx search --remote`: the daemon's catalogue (GET /v1/tools, hook tools
// hidden), rendered by the same code as a local ls/types: the same stdout, stderr and exit code.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeServer, sandbox, type Result } from "./harness.ts";
import { mcpx, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer(), other: fakeServer() } });

let d: Daemon;
afterAll(stopDaemons);
beforeAll(async () => {
  d = await startDaemon(sb);
});

/** the same command locally and with --remote (right after the subcommand) */
async function both(argv: string[]): Promise<{ local: Result; remote: Result }> {
  const [cmd, ...rest] = argv;
  const [local, remote] = await Promise.all([mcpx(sb, argv), mcpx(sb, [cmd!, "--remote", ...rest])]);
  return { local, remote };
}

function expectSame({ local, remote }: { local: Result; remote: Result }): void {
  expect({ code: remote.code, stdout: remote.stdout, stderr: remote.stderr }).toEqual({ code: local.code, stdout: local.stdout, stderr: local.stderr });
}

describe("mcpx ls --remote and mcpx types --remote print what the local commands print", () => {
  test("ls, ls SERVER and their --json; hook tools are not listed", async () => {
    const all = await both(["ls"]);
    expect(all.local.code).toBe(0);
    expect(all.local.stdout).toContain("fake\t");
    expectSame(all);
    const one = await both(["ls", "fake"]);
    expect(one.local.stdout).toContain("fake.echo");
    expect(one.remote.stdout).not.toContain("_secret");
    expectSame(one);
    expectSame(await both(["ls", "--json"]));
    expectSame(await both(["ls", "--json", "fake"]));
  });

  test("ls of an unknown server exits 2 with the did-you-mean", async () => {
    const r = await both(["ls", "fak"]);
    expect(r.local.code).toBe(2);
    expectSame(r);
  });

  test("types SERVER and SERVER.TOOL; an unknown tool and an unknown server fail alike", async () => {
    const server = await both(["types", "fake"]);
    expect(server.local.code).toBe(0);
    expectSame(server);
    expectSame(await both(["types", "fake.echo"]));
    const tool = await both(["types", "fake.ecko"]);
    expect(tool.local.code).toBe(1);
    expectSame(tool);
    expectSame(await both(["types", "fake._secret"]));
    const unknown = await both(["types", "nope.echo"]);
    expect(unknown.local.code).toBe(2);
    expectSame(unknown);
  });
});

describe("mcpx search --remote ranks the daemon's catalogue as a local search ranks its own", () => {
  test("the same hits, lines and --json; hook tools are never found", async () => {
    const text = await both(["search", "echo a message"]);
    expect(text.local.code).toBe(0);
    expect(text.local.stdout).toStartWith("fake.echo\t");
    expectSame(text);
    // the hook tool _secret is named by exactly this word: it would be the only hit if it were searched
    const secret = await both(["search", "secret", "--json"]);
    expect(JSON.parse(secret.remote.stdout)).toEqual([]);
    expectSame(secret);
  });

  test("an ad-hoc server does not travel with search either: exit 2", async () => {
    const r = await mcpx(sb, ["search", "--remote", "--stdio", "true", "echo"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--stdio does not travel with --remote");
  });
});

describe("GET /v1/tools", () => {
  test("list=none gives the names without tools; another list value is a 400", async () => {
    const body = (await (await d.fetch("/v1/tools?list=none")).json()) as { catalogue: { servers: string[]; rows: unknown[] } };
    expect(body.catalogue).toEqual({ servers: ["fake", "other"], rows: [] });
    expect((await d.fetch("/v1/tools?list=all")).status).toBe(400);
  });

  test("an ad-hoc server does not travel: exit 2", async () => {
    const r = await mcpx(sb, ["ls", "--remote", "--stdio", "true"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--stdio does not travel with --remote");
  });
});
