// mcpx trust (docs/decisions/0015): trusting a project's file makes mcpx use it in full, a change
// untrusts it, --list and --revoke, --config and MCPX_CONFIG are trusted as named, a trust is of one
// file at one place, and a server remembered before a trust was revoked is not started early.

import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, shipped } from "./support.ts";

/** a repository whose .mcpx.json has a script.before line that prints BEFORE, and one exec.timeout */
function repo() {
  const sb = sandbox();
  const file = shipped(sb, "repo/.mcpx.json", { script: { before: ['console.log("BEFORE")'] }, hooks: [], exec: { timeout: "30s" } });
  return { sb, file, cwd: join(sb.dir, "repo") };
}

const WARNING = "is not trusted, so what in it runs code or widens what runs is not used";

describe("mcpx trust", () => {
  test("an untrusted file gets one warning naming it and mcpx trust, and the failing command names its file, key and mcpx trust PATH", async () => {
    const { sb, file, cwd } = repo();
    const r = await mcpx(sb, ["exec", "return 1"], { cwd });
    expectExit(r, 2);
    expect(r.stderr.split(WARNING).length - 1).toBe(1);
    expect(r.stderr).toContain(`${file} ${WARNING} (script.before, hooks): review it, then run \`mcpx trust ${file}\``);
    expect(r.stderr).toContain(`mcpx exec: ${file}:3:5: key script.before: not used, because it runs code and this file is not trusted`);
    expect(r.stderr).toContain(`run \`mcpx trust ${file}\``);
  });

  test("what neither runs code nor widens what runs is used from an untrusted file: exec.timeout, a url server with literal values", async () => {
    const sb = sandbox();
    const file = shipped(sb, "repo/.mcpx.json", { exec: { timeout: "7s" }, mcpServers: { web: { url: "http://127.0.0.1:9/mcp" } } });
    const cwd = join(sb.dir, "repo");
    const got = await mcpx(sb, ["settings", "get", "exec.timeout", "--json"], { cwd });
    expectExit(got, 0);
    expect(JSON.parse(got.stdout)).toMatchObject({ value: 7000, origin: `file:${file}` });
    expect(got.stderr).not.toContain(WARNING);
    const ls = await mcpx(sb, ["ls"], { cwd });
    expect(ls.stdout).toMatch(/^web\terror: /m);
  });

  test("a url server whose headers take a variable waits for trust: it would send the environment's value where the file says", async () => {
    const sb = sandbox();
    shipped(sb, "repo/.mcpx.json", { mcpServers: { web: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } } } });
    const r = await mcpx(sb, ["ls"], { cwd: join(sb.dir, "repo"), env: { GITHUB_TOKEN: "t0ken" } });
    expect(r.stdout).toMatch(/^web\tnot trusted, not started/m);
    expect(r.stderr).toContain("mcpServers.web");
  });

  test("a url server whose oauth client secret takes a variable waits for trust too: the secret would go to its authorization server", async () => {
    const sb = sandbox();
    shipped(sb, "repo/.mcpx.json", { mcpServers: { web: { url: "http://127.0.0.1:9/mcp", oauth: { clientId: "c", clientSecret: "${WEB_SECRET}" } } } });
    const r = await mcpx(sb, ["ls"], { cwd: join(sb.dir, "repo"), env: { WEB_SECRET: "s3cret" } });
    expect(r.stdout).toMatch(/^web\tnot trusted, not started/m);
  });

  test("with no path it trusts every untrusted file in force here, after which the file is used in full; trusting again changes nothing", async () => {
    const { sb, file, cwd } = repo();
    const t = await mcpx(sb, ["trust"], { cwd });
    expectExit(t, 0);
    expect(t.stdout).toMatch(new RegExp(`^trusted ${file} \\(sha256:[0-9a-f]{16}\\)\\n$`));
    expect(t.stderr).toBe("");
    const r = await mcpx(sb, ["exec", "return 2"], { cwd });
    expectExit(r, 0);
    expect(r.stdout).toBe("BEFORE\n2\n");
    expect(r.stderr).not.toContain(WARNING);
    const again = await mcpx(sb, ["trust"], { cwd });
    expect(again.stdout).toBe("nothing to trust here: every project file in force is trusted\n");
  });

  test("a changed file is untrusted again until trusted again", async () => {
    const { sb, file, cwd } = repo();
    expectExit(await mcpx(sb, ["trust", file], { cwd }), 0);
    expectExit(await mcpx(sb, ["exec", "return 1"], { cwd }), 0);
    writeFileSync(file, readFileSync(file, "utf8").replace("BEFORE", "PWNED!"));
    const r = await mcpx(sb, ["exec", "return 1"], { cwd });
    expectExit(r, 2);
    expect(r.stdout).not.toContain("PWNED");
    expect(r.stderr).toContain(`mcpx trust ${file}`);
    const list = await mcpx(sb, ["trust", "--list"], { cwd });
    expect(list.stdout).toMatch(new RegExp(`^${file}\\tsha256:[0-9a-f]{16}\\t\\d{4}-\\d\\d-\\d\\dT[^\\t]+\\tchanged$`, "m"));
    expectExit(await mcpx(sb, ["trust", ".mcpx.json"], { cwd }), 0);
    const after = await mcpx(sb, ["exec", "return 1"], { cwd });
    expectExit(after, 0);
    expect(after.stdout).toBe("PWNED!\n1\n");
  });

  test("--list shows path, hash, when and whether it still matches; --revoke takes the trust back; the record is 0600 in a 0700 folder", async () => {
    const { sb, file, cwd } = repo();
    expectExit(await mcpx(sb, ["trust", file], { cwd }), 0);
    const list = await mcpx(sb, ["trust", "--list", "--json"], { cwd });
    expectExit(list, 0);
    // the harness trusts the fixtures this repository ships (harness.ts): this file's row is the one here
    const rows = (JSON.parse(list.stdout) as Array<{ path: string; sha256: string; trustedAt: string; state: string }>).filter((r) =>
      r.path.startsWith(sb.dir),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ path: file, state: "matches" });
    expect(rows[0]!.sha256).toBe(new Bun.CryptoHasher("sha256").update(readFileSync(file, "utf8")).digest("hex"));
    const dir = join(sb.env.XDG_STATE_HOME!, "mcpx", "trust");
    const { readdirSync, statSync } = await import("node:fs");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    const revoke = await mcpx(sb, ["trust", "--revoke", file], { cwd });
    expectExit(revoke, 0);
    expect(revoke.stdout).toBe(`revoked ${file}\n`);
    expectExit(await mcpx(sb, ["exec", "return 1"], { cwd }), 2);
    const none = await mcpx(sb, ["trust", "--revoke", file], { cwd });
    expectExit(none, 2);
    expect(none.stderr).toContain("is not trusted");
  });

  test("a file named by --config or MCPX_CONFIG is trusted as named", async () => {
    const { sb, file, cwd } = repo();
    for (const how of [{ args: ["--config", file] }, { args: [], env: { MCPX_CONFIG: file } }]) {
      const r = await mcpx(sb, ["exec", ...how.args, "return 3"], { cwd, env: how.env });
      expectExit(r, 0);
      expect(r.stdout).toBe("BEFORE\n3\n");
    }
  });

  test("the user's own config file is trusted without asking", async () => {
    const sb = sandbox();
    shipped(sb, "home/.config/mcpx/config.json", { script: { before: ['console.log("MINE")'] } });
    const r = await mcpx(sb, ["exec", "return 1"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("MINE\n1\n");
  });

  test("a trust is of one file at one place: the same text in another directory is not trusted", async () => {
    const { sb, file, cwd } = repo();
    expectExit(await mcpx(sb, ["trust", file], { cwd }), 0);
    const other = shipped(sb, "other/.mcpx.json", readFileSync(file, "utf8"));
    const r = await mcpx(sb, ["exec", "return 1"], { cwd: join(sb.dir, "other") });
    expectExit(r, 2);
    expect(r.stderr).toContain(`mcpx trust ${other}`);
  });

  test("a symlinked .mcpx.json is trusted under its own name, not its target's: a link to a trusted file elsewhere is untrusted", async () => {
    const { sb, file, cwd } = repo();
    expectExit(await mcpx(sb, ["trust", file], { cwd }), 0);
    mkdirSync(join(sb.dir, "linked"));
    const link = join(sb.dir, "linked/.mcpx.json");
    symlinkSync(file, link);
    const r = await mcpx(sb, ["exec", "return 1"], { cwd: join(sb.dir, "linked") });
    expectExit(r, 2);
    expect(r.stderr).toContain(`mcpx trust ${link}`);
    // a directory reached through a link is the same directory: the trusted file is the same file
    symlinkSync(cwd, join(sb.dir, "checkout"));
    const same = await mcpx(sb, ["exec", "return 1"], { cwd: join(sb.dir, "checkout") });
    expectExit(same, 0);
  });

  test("a trusted project's plugin manifest needs trusting too, and mcpx trust with no path trusts both", async () => {
    const sb = sandbox();
    const manifest = shipped(sb, "repo/plug/mcpx-plugin.json", { name: "plug", server: fakeServer(), hooks: [] });
    const file = shipped(sb, "repo/.mcpx.json", { plugins: ["./plug"] });
    const cwd = join(sb.dir, "repo");
    expectExit(await mcpx(sb, ["trust", file], { cwd }), 0);
    const r = await mcpx(sb, ["exec", "return 1"], { cwd });
    expectExit(r, 2);
    expect(r.stderr).toContain(`${manifest}: key server: not used, because a plugin starts its server and brings hooks`);
    const t = await mcpx(sb, ["trust"], { cwd });
    expect(t.stdout).toContain(`trusted ${manifest}`);
    expectExit(await mcpx(sb, ["exec", "return await plug.echo({ message: 'hi' })"], { cwd }), 0);
  });

  test("a server started early from a note written while trusted is not started once the trust is revoked", async () => {
    const sb = sandbox();
    const starts = join(sb.dir, "starts");
    const file = shipped(sb, "repo/.mcpx.json", {
      mcpServers: { fake: { ...fakeServer(), command: "sh", args: ["-c", `echo >> '${starts}'; exec '${fakeServer().command}' '${fakeServer().args[0]}'`] } },
    });
    const cwd = join(sb.dir, "repo");
    expectExit(await mcpx(sb, ["trust", file], { cwd }), 0);
    for (let i = 0; i < 2; i++) expectExit(await mcpx(sb, ["call", "fake.echo", "message=hi"], { cwd }), 0);
    const count = () => (existsSync(starts) ? readFileSync(starts, "utf8").length : 0);
    const before = count();
    expectExit(await mcpx(sb, ["trust", "--revoke", file], { cwd }), 0);
    const r = await mcpx(sb, ["call", "fake.echo", "message=hi"], { cwd });
    expectExit(r, 2);
    expect(r.stderr).toContain("key mcpServers.fake: not used, because it starts a program");
    expect(count()).toBe(before);
  });
});
