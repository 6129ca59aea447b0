// A session remembered (lib/session/session-note.ts): the next command with the same inputs gets from
// the note exactly what resolving would give, and no note is used once anything it was resolved from
// reads differently, even a file rewritten with the same size and times. Sessions that warned, or
// hold a secret, are never remembered; a folder keeps only the newest notes (lib/paths/note-file.ts).

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOTES_KEPT, notePath, writeNote } from "../../lib/paths/note-file.ts";
import { openSession, type SessionInput } from "../../lib/session/session.ts";
import { recallSession } from "../../lib/session/session-note.ts";
import { removeTempRoots, tempRoot, write } from "./temp-files.ts";
import { revokeFile, trustFile } from "../../lib/trust/trust-files.ts";

afterAll(removeTempRoots);

/** a project in a fresh HOME, with a user config, a project config, an imported Cursor file and a source line from a file */
function project(): { input: SessionInput; root: string; files: Record<"user" | "project" | "cursor" | "line", string> } {
  const root = tempRoot();
  const home = join(root, "home");
  const cwd = join(root, "work", "proj");
  const files = {
    user: write(join(home, ".config", "mcpx", "config.json"), JSON.stringify({ exec: { timeout: "45s" }, "script.suffix": ["log('u')"] })),
    project: write(
      join(cwd, ".mcpx.json"),
      // a comment, so the text differs from its parse
      `// project\n${JSON.stringify({
        mcpServers: { fake: { command: "node", args: ["s.js"], env: { K: "${HOME}" } }, web: { url: "http://127.0.0.1:9/mcp", headers: { A: "b" } } },
        script: { before: ["log('p')", "@line.ts"] },
        hooks: [{ on: "call", phase: "before", match: "fake.*", run: ["true"] }],
        config: { imports: ["cursor"] },
      })}`,
    ),
    cursor: write(join(cwd, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { imported: { command: "node", args: ["i.js"] } } })),
    line: write(join(cwd, "line.ts"), "log('from a file')"),
  };
  const env = { HOME: home, XDG_STATE_HOME: join(root, "state"), XDG_CACHE_HOME: join(root, "cache"), MCPX_LOGGING_LEVEL: "warn" };
  // the user trusts the project's files, as `mcpx trust` does (docs/decisions/0015)
  for (const f of [files.project, files.cursor]) trustFile(env, cwd, f);
  return { input: { cwd, env, flags: [{ path: "script.prefix", spelling: "--prefix", value: "log('flag')" }] }, root, files };
}

/** what a session is made of, as plain data */
function made(input: SessionInput) {
  const s = openSession(input);
  return { config: s.config, imports: s.imports, settings: [...s.settings], consulted: [...s.consulted] };
}

/** rewrites a file with other text of the same length, and puts its times back */
function sameSizeEdit(path: string, from: string, to: string): void {
  const st = statSync(path);
  const text = readFileSync(path, "utf8");
  expect(to.length).toBe(from.length);
  writeFileSync(path, text.replace(from, to));
  utimesSync(path, st.atime, st.mtime);
}

describe("a session remembered", () => {
  test("the second session with the same inputs comes from the note, equal to one resolved afresh", () => {
    const { input } = project();
    expect(recallSession(input)).toBeUndefined();
    const first = made(input);
    const recalled = recallSession(input);
    expect(recalled).toBeDefined();
    const second = made(input);
    expect(second).toEqual(first);
    expect(second.settings.find(([p]) => p === "script.before")![1].value).toEqual(["log('p')", "log('from a file')"]);
    expect(Object.keys(second.config.servers).sort()).toEqual(["fake", "imported", "web"]);
    // the registry's declarations, not copies: decl is the same object
    expect(recalled!.settings.get("exec.timeout")!.decl).toBe(openSession(input).settings.get("exec.timeout")!.decl);
  });

  test.each(["user", "project", "cursor", "line"] as const)("a %s file rewritten with the same size and times is seen", (which) => {
    const { input, files } = project();
    made(input);
    expect(recallSession(input)).toBeDefined();
    const [from, to] = { user: ["45s", "46s"], project: ["log('p')", "log('q')"], cursor: ["i.js", "j.js"], line: ["from", "FROM"] }[which];
    sameSizeEdit(files[which], from!, to!);
    expect(recallSession(input)).toBeUndefined();
    // a project's file that changed is untrusted again: the user trusts what they changed
    if (which === "project" || which === "cursor") trustFile(input.env, input.cwd, files[which]);
    const after = made(input);
    expect(JSON.stringify(after)).toContain(to!);
    expect(recallSession(input)).toBeDefined();
  });

  test("a config file appearing where resolution looked is seen", () => {
    const { input, root } = project();
    made(input);
    write(join(root, "work", ".mcpx.json"), JSON.stringify({ exec: { timeout: "9s" } }));
    expect(recallSession(input)).toBeUndefined();
  });

  test("another directory, environment, --config or flag is another note", () => {
    const { input, files } = project();
    made(input);
    expect(recallSession({ ...input, env: { ...input.env, MCPX_EXEC_TIMEOUT: "5s" } })).toBeUndefined();
    expect(recallSession({ ...input, env: { ...input.env, UNRELATED: "1" } })).toBeUndefined();
    expect(recallSession({ ...input, flags: [] })).toBeUndefined();
    expect(recallSession({ ...input, configFlag: files.project })).toBeUndefined();
    expect(recallSession({ ...input, cwd: join(input.cwd, "..") })).toBeUndefined();
    expect(recallSession(input)).toBeDefined();
  });

  test("a note is 0600 in a 0700 folder of the state directory; an unreadable one is ignored and replaced", () => {
    const { input, root } = project();
    made(input);
    const dir = join(root, "state", "mcpx", "session");
    const [name] = readdirSync(dir);
    expect(statSync(join(dir, name!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    writeFileSync(join(dir, name!), "{not json");
    expect(recallSession(input)).toBeUndefined();
    made(input);
    expect(recallSession(input)).toBeDefined();
  });

  test("a session that warned is not remembered, so its warning is said again next time", () => {
    const { input, files } = project();
    // a broken server entry: the session still opens, and warns about it
    writeFileSync(files.user, JSON.stringify({ mcpServers: { bad: { command: 1 } } }));
    made(input);
    expect(recallSession(input)).toBeUndefined();
    writeFileSync(files.user, "{}");
    writeFileSync(files.cursor, "{ not json");
    made(input);
    expect(recallSession(input)).toBeUndefined();
  });

  test("a session with a secret setting set is not remembered: a token from the environment never reaches a file", () => {
    const { input, root } = project();
    const withToken = { ...input, env: { ...input.env, MCPX_DAEMON_TOKEN: "hunter2" } };
    made(withToken);
    expect(recallSession(withToken)).toBeUndefined();
    const dir = join(root, "state", "mcpx", "session");
    expect(existsSync(dir) ? readdirSync(dir) : []).toHaveLength(0);
  });

  test("a trust revoked or given is seen by the next session: the note is kept by the trust records it read", () => {
    const { input, files } = project();
    made(input);
    expect(recallSession(input)).toBeDefined();
    revokeFile(input.env, input.cwd, files.project);
    expect(recallSession(input)).toBeUndefined();
    const untrusted = openSession(input);
    expect(untrusted.trust.withheld.map((w) => `${w.file} ${w.key}`)).toEqual(
      ["script.before", "hooks", "mcpServers.fake"].map((k) => `${files.project} ${k}`),
    );
    expect(untrusted.config.servers.fake).toBeUndefined();
    expect(untrusted.config.broken.fake?.untrusted).toBe(true);
    // a session that withheld something is not remembered: trusting the file again is seen at once
    expect(recallSession(input)).toBeUndefined();
    trustFile(input.env, input.cwd, files.project);
    expect(openSession(input).trust.withheld).toEqual([]);
    expect(recallSession(input)).toBeDefined();
  });

  test("a file that can no longer be read makes the note useless, and the session says why", () => {
    const { input, files } = project();
    made(input);
    // a directory where the file was: unreadable even for root
    rmSync(files.line);
    mkdirSync(files.line);
    expect(recallSession(input)).toBeUndefined();
    expect(() => openSession(input)).toThrow(/line\.ts/);
  });
});

describe("notes are kept few", () => {
  test(`a folder keeps the ${NOTES_KEPT} newest notes`, () => {
    const root = tempRoot();
    const env = { XDG_STATE_HOME: root };
    const paths = Array.from({ length: NOTES_KEPT + 6 }, (_, i) => notePath(env, "kind", ["key", i]));
    paths.forEach((p, i) => {
      writeNote(p, "{}");
      // distinct ages, oldest first, whatever the clock's tick
      utimesSync(p, new Date(1_000_000 + i * 1000), new Date(1_000_000 + i * 1000));
    });
    const kept = readdirSync(join(root, "mcpx", "kind")).filter((f) => f.endsWith(".json"));
    expect(kept).toHaveLength(NOTES_KEPT);
    for (const p of paths.slice(0, 6)) expect(existsSync(p)).toBe(false);
    for (const p of paths.slice(6)) expect(existsSync(p)).toBe(true);
  });
});
