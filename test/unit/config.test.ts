// Config finding and reading: the null-splice rule, strict JSONC, the file chain, ${VAR} expansion,
// mcpServers validation and loadConfig. Every filesystem test works in its own temp directory and
// passes env explicitly, so nothing from the machine's HOME or process.env can leak in.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../../lib/config/errors.ts";
import { expandVars } from "../../lib/config/expand.ts";
import { findConfigFiles, userConfigFile } from "../../lib/config/find.ts";
import { formatKeyPath, locateKey, parseJsonc } from "../../lib/config/jsonc.ts";
import { loadConfig, parseConfigText } from "../../lib/config/load.ts";
import { type Layer, spliceLayers } from "../../lib/config/null-splice.ts";
import { mergeServers, parseServers, type ServerConfig } from "../../lib/config/servers.ts";
import { removeTempRoots, tempRoot, write } from "./temp-files.ts";

afterAll(removeTempRoots);

/** Runs fn and returns the ConfigError it throws; fails the test if it throws nothing else. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

describe("null-splice", () => {
  const L = (origin: string, ...items: Array<string | null>): Layer<string> => ({ origin, items });
  const values = (xs: Array<{ value: string }>) => xs.map((x) => x.value);

  const table: Array<{ name: string; layers: Array<Layer<string> | undefined>; items: string[]; shadowed: string[] }> = [
    { name: "no layers give nothing", layers: [], items: [], shadowed: [] },
    { name: "only absent layers give nothing", layers: [undefined, undefined], items: [], shadowed: [] },
    { name: "a single layer is its own items", layers: [L("d", "a", "b")], items: ["a", "b"], shadowed: [] },
    { name: "a list without null replaces what it inherits", layers: [L("d", "x", "y"), L("f", "a")], items: ["a"], shadowed: ["x", "y"] },
    {
      name: "null splices the inherited items at its position (the design's example)",
      layers: [L("d", "x", "y"), L("f", "a", null, "b")],
      items: ["a", "x", "y", "b"],
      shadowed: [],
    },
    { name: "a leading null appends", layers: [L("d", "x"), L("f", null, "a")], items: ["x", "a"], shadowed: [] },
    { name: "a trailing null prepends", layers: [L("d", "x"), L("f", "a", null)], items: ["a", "x"], shadowed: [] },
    { name: "a lone null inherits unchanged", layers: [L("d", "x", "y"), L("f", null)], items: ["x", "y"], shadowed: [] },
    { name: "an empty list clears everything inherited", layers: [L("d", "x", "y"), L("f")], items: [], shadowed: ["x", "y"] },
    { name: "an absent layer inherits unchanged", layers: [L("d", "x"), undefined, L("e", null, "a")], items: ["x", "a"], shadowed: [] },
    { name: "every null splices a full copy", layers: [L("d", "x", "y"), L("f", null, "a", null)], items: ["x", "y", "a", "x", "y"], shadowed: [] },
    { name: "null with nothing inherited contributes nothing", layers: [L("f", null, "a", null)], items: ["a"], shadowed: [] },
    {
      name: "shadowed accumulates across replacing layers in the order dropped",
      layers: [L("d", "x"), L("f", "y"), L("e", "z")],
      items: ["z"],
      shadowed: ["x", "y"],
    },
    {
      name: "items spliced through one layer can be dropped by the next",
      layers: [L("d", "x"), L("f", null, "a"), L("e", "b")],
      items: ["b"],
      shadowed: ["x", "a"],
    },
    {
      name: "four layers splice through each other",
      layers: [L("d", "x"), L("u", "u", null), L("p", null, "p"), L("flag", "f", null)],
      items: ["f", "u", "x", "p"],
      shadowed: [],
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const got = spliceLayers(row.layers);
      expect(values(got.items)).toEqual(row.items);
      expect(values(got.shadowed)).toEqual(row.shadowed);
    });
  }

  test("every item keeps the origin of the layer that wrote it, through several splices", () => {
    const got = spliceLayers([L("default", "x"), L("/home/u/.config/mcpx/config.json", null, "u"), undefined, L("--before", "f", null)]);
    expect(got.items).toEqual([
      { value: "f", origin: "--before" },
      { value: "x", origin: "default" },
      { value: "u", origin: "/home/u/.config/mcpx/config.json" },
    ]);
  });

  test("shadowed items keep their origin", () => {
    const got = spliceLayers([L("default", "x"), L("MCPX_SCRIPT_BEFORE", "e")]);
    expect(got.shadowed).toEqual([{ value: "x", origin: "default" }]);
  });

  test("structured items (hooks) splice the same way", () => {
    const got = spliceLayers<{ run: string[] }>([
      { origin: "a", items: [{ run: ["x"] }] },
      { origin: "b", items: [null, { run: ["y"] }] },
    ]);
    expect(got.items.map((i) => i.value.run[0])).toEqual(["x", "y"]);
  });
});

describe("jsonc", () => {
  test("comments and trailing commas are allowed", () => {
    const text = '// user config\n{\n  /* servers */\n  "a": [1, 2,],\n  "b": {"c": true,},\n}\n';
    expect(parseJsonc(text, "f.json")).toEqual({ a: [1, 2], b: { c: true } });
  });

  test("a missing comma in an object names file, line and column and says what was expected", () => {
    const err = configError(() => parseJsonc('{\n  "a": 1\n  "b": 2\n}', "~/.mcpx.json"));
    expect(err.message).toBe('~/.mcpx.json:3:3: expected a comma or closing brace (found "\\"b\\"")');
    expect([err.file, err.line, err.column]).toEqual(["~/.mcpx.json", 3, 3]);
  });

  test("a missing comma in an array asks for a comma or closing bracket", () => {
    expect(configError(() => parseJsonc('{"a": [1 2]}', "f")).message).toStartWith("f:1:10: expected a comma or closing bracket");
  });

  test("a file nested 100,000 levels deep is a config error at the bracket past the limit, not a stack overflow", () => {
    const err = configError(() => parseJsonc('{"a":'.repeat(100_000) + "1" + "}".repeat(100_000), "deep.json"));
    expect([err.file, err.line, err.column]).toEqual(["deep.json", 1, 5 * 256 + 1]);
    expect(err.detail).toStartWith("nested more than 256 levels deep");
    expect(configError(() => parseJsonc("[".repeat(100_000) + "]".repeat(100_000), "f")).message).toStartWith("f:1:257: nested more than 256");
  });

  test("brackets inside strings and comments are not nesting", () => {
    const text = `// ${"[".repeat(300)}\n/* ${"{".repeat(300)} */ {"a": "${"[".repeat(300)}\\"${"{".repeat(300)}"}`;
    expect(parseJsonc(text, "f")).toEqual({ a: `${"[".repeat(300)}"${"{".repeat(300)}` });
  });

  test("an empty file is an error that says to write {}", () => {
    expect(configError(() => parseJsonc(" \n", "f")).detail).toBe("the file is empty: write {} or delete the file");
  });

  test("an unquoted key is an error that mentions double quotes", () => {
    const err = configError(() => parseJsonc("{\n  servers: 1\n}", "f"));
    expect([err.line, err.column]).toEqual([2, 3]);
    expect(err.detail).toContain("double quotes");
  });

  test("an unclosed object is an error, never a partial value", () => {
    expect(configError(() => parseJsonc('{"a": 1', "f")).detail).toContain("closing brace");
  });

  test("a string broken across lines is an error", () => {
    expect(configError(() => parseJsonc('{"a": "x\ny"}', "f")).detail).toContain("string is not closed");
  });

  test("text after the top-level value is an error", () => {
    expect(configError(() => parseJsonc("{} {}", "f")).detail).toContain("exactly one object");
  });

  test("a duplicate key is an error naming the key path and both lines", () => {
    const err = configError(() => parseJsonc('{"mcpServers": {\n  "a": {},\n  "a": {}\n}}', "f"));
    expect(err.message).toBe("f:3:3: key mcpServers.a: duplicate key (first written on line 2): JSON keeps only the last one, so remove or merge one of them");
  });

  test("a byte-order mark is accepted and does not shift positions", () => {
    expect(parseJsonc('\uFEFF{"a": 1}', "f")).toEqual({ a: 1 });
    expect(configError(() => parseJsonc('\uFEFF{"a" 1}', "f")).column).toBe(6);
  });

  test("locateKey finds nested keys, literal dotted keys and array items", () => {
    const text = '{\n  "script": {"before": ["x"]},\n  "script.after": 1,\n  "mcpServers": {\n    "a": {\n      "args": ["p", "q"]\n    }\n  }\n}';
    expect(locateKey(text, ["script", "before"])).toEqual({ line: 2, column: 14 });
    expect(locateKey(text, ["script.after"])).toEqual({ line: 3, column: 3 });
    expect(locateKey(text, ["mcpServers", "a", "args", 1])).toEqual({ line: 6, column: 21 });
  });

  test("locateKey falls back to the deepest ancestor that exists", () => {
    const text = '{\n  "mcpServers": {\n    "a": {}\n  }\n}';
    expect(locateKey(text, ["mcpServers", "a", "command"])).toEqual({ line: 3, column: 5 });
  });

  test("locateKey counts CRLF lines", () => {
    expect(locateKey('{\r\n"a": 1,\r\n"b": 2}', ["b"])).toEqual({ line: 3, column: 1 });
  });

  test("key paths quote keys that are not plain names", () => {
    expect(formatKeyPath(["mcpServers", "my-server", "args", 2])).toBe("mcpServers.my-server.args[2]");
    expect(formatKeyPath(["mcpServers", "a.b", "env", "X Y"])).toBe('mcpServers["a.b"].env["X Y"]');
  });
});

describe("finding config files", () => {
  const root = tempRoot("mcpx-config-");

  test("the temp root has no config files above it (else these tests would see the machine's)", () => {
    expect(findConfigFiles({ cwd: root, env: {} }).filter((p) => !p.startsWith(root))).toEqual([]);
  });

  test("files are returned lowest precedence first: user file, farthest project dir, nearest", () => {
    const home = join(root, "order", "home");
    const user = write(join(home, ".config", "mcpx", "config.json"), "{}");
    const far = write(join(root, "order", "w", ".mcpx.json"), "{}");
    const farDir = write(join(root, "order", "w", ".mcpx", "config.json"), "{}");
    const near = write(join(root, "order", "w", "p", "q", ".mcpx.json"), "{}");
    const cwd = join(root, "order", "w", "p", "q", "r");
    mkdirSync(cwd, { recursive: true });
    // .mcpx/config.json is below .mcpx.json of the same directory
    expect(findConfigFiles({ cwd, env: { HOME: home } })).toEqual([user, farDir, far, near]);
  });

  test("onProbe is told every path looked at, found or not: what a session was resolved from", () => {
    const home = join(root, "probe", "home");
    const cwd = join(root, "probe", "w");
    mkdirSync(cwd, { recursive: true });
    const seen: string[] = [];
    findConfigFiles({ cwd, env: { HOME: home }, onProbe: (p) => seen.push(p) });
    expect(seen).toContain(join(home, ".config", "mcpx", "config.json"));
    for (const dir of [cwd, join(root, "probe"), "/"]) {
      expect(seen).toContain(join(dir, ".mcpx.json"));
      expect(seen).toContain(join(dir, ".mcpx", "config.json"));
    }
  });

  test("XDG_CONFIG_HOME replaces $HOME/.config for the user file", () => {
    const xdg = join(root, "xdg");
    const user = write(join(xdg, "mcpx", "config.json"), "{}");
    write(join(root, "xdghome", ".config", "mcpx", "config.json"), "{}");
    expect(findConfigFiles({ cwd: root, env: { HOME: join(root, "xdghome"), XDG_CONFIG_HOME: xdg } })).toEqual([user]);
  });

  test("with neither HOME nor XDG_CONFIG_HOME there is no user file", () => {
    expect(userConfigFile({})).toBeUndefined();
  });

  test("a relative XDG_CONFIG_HOME is an error naming the variable", () => {
    expect(configError(() => userConfigFile({ XDG_CONFIG_HOME: "cfg" })).message).toStartWith("XDG_CONFIG_HOME: must be an absolute path");
  });

  test("--config FILE is exactly that file, resolved against cwd, even when others exist", () => {
    const dir = join(root, "explicit");
    write(join(dir, ".mcpx.json"), "{}");
    const chosen = write(join(dir, "other.json"), "{}");
    expect(findConfigFiles({ cwd: dir, env: { MCPX_CONFIG: "/nope" }, explicit: "other.json" })).toEqual([chosen]);
  });

  test("MCPX_CONFIG is exactly that file", () => {
    const chosen = write(join(root, "envcfg", "c.json"), "{}");
    expect(findConfigFiles({ cwd: root, env: { MCPX_CONFIG: chosen } })).toEqual([chosen]);
  });

  test("an empty MCPX_CONFIG counts as unset", () => {
    expect(findConfigFiles({ cwd: join(root, "explicit"), env: { MCPX_CONFIG: "" } })).toEqual([join(root, "explicit", ".mcpx.json")]);
  });

  test("a missing --config file is an error naming the flag", () => {
    const err = configError(() => findConfigFiles({ cwd: root, env: {}, explicit: "missing.json" }));
    expect(err.message).toBe(`${join(root, "missing.json")}: named by --config, does not exist: fix the path or drop --config`);
  });

  test("a missing MCPX_CONFIG file is an error naming the variable", () => {
    expect(configError(() => findConfigFiles({ cwd: root, env: { MCPX_CONFIG: "gone.json" } })).detail).toContain("named by MCPX_CONFIG");
  });

  test("a directory where a config file should be is an error, not a silent skip", () => {
    const dir = join(root, "isdir");
    mkdirSync(join(dir, ".mcpx.json"), { recursive: true });
    expect(configError(() => findConfigFiles({ cwd: dir, env: {} })).detail).toContain("not a regular file");
  });

  test("the walk reaches the filesystem root", () => {
    const seen: string[] = [];
    findConfigFiles({ cwd: "/a/b", env: {} }, (p) => {
      seen.push(p);
      return false;
    });
    expect(seen).toEqual(["/a/b/.mcpx.json", "/a/b/.mcpx/config.json", "/a/.mcpx.json", "/a/.mcpx/config.json", "/.mcpx.json", "/.mcpx/config.json"]);
  });
});

describe("variable expansion", () => {
  const env = { A: "1", EMPTY: "", B: "two" };
  const expand = (s: string) =>
    expandVars(s, env, (detail) => {
      throw new Error(detail);
    });
  const table: Array<[string, string]> = [
    ["plain", "plain"],
    ["${A}", "1"],
    ["x${A}y${B}z", "x1ytwoz"],
    ["${EMPTY}", ""],
    ["${MISSING:-dflt}", "dflt"],
    ["${EMPTY:-dflt}", "dflt"],
    ["${A:-dflt}", "1"],
    ["${MISSING:-}", ""],
    ["${MISSING:-${B}/x}", "two/x"],
    ["${A:-${MISSING}}", "1"], // an unused default is not evaluated, so its unset variable is fine
    ["$${A}", "${A}"],
    ["echo $$", "echo $$"],
    ["$HOME and $", "$HOME and $"],
    ["${MISSING:-a:b-c}", "a:b-c"],
  ];
  for (const [input, want] of table) {
    test(`${JSON.stringify(input)} expands to ${JSON.stringify(want)}`, () => expect(expand(input)).toBe(want));
  }

  const errors: Array<[string, string]> = [
    ["${MISSING}", "variable MISSING is not set: set it, or write ${MISSING:-default} to give a default"],
    ["${MISSING:-${ALSO}}", "variable ALSO is not set"],
    ["${1A}", "is not a variable reference"],
    ["${A B}", "only ${A} and ${A:-default} are supported"],
    ["${A:?msg}", "only ${A} and ${A:-default} are supported"],
    ["${A", 'is a "}" missing?'],
    ["${A:-x", "is not closed"],
  ];
  for (const [input, want] of errors) {
    test(`${JSON.stringify(input)} is an error`, () => expect(() => expand(input)).toThrow(want));
  }
});

describe("mcpServers", () => {
  const file = "/proj/.mcpx.json";
  // the first broken entry's error is thrown, as parseServers did before entries could be broken one by one
  const parse = (servers: unknown, env: Record<string, string> = {}) => {
    const got = parseServers(servers, { file, env, locate: () => undefined });
    const broken = Object.values(got.broken)[0];
    if (broken) throw broken.error;
    return got.servers;
  };
  const problem = (servers: unknown, env: Record<string, string> = {}) => configError(() => parse(servers, env)).message;

  test("a stdio entry gets empty args and env by default and remembers its file", () => {
    expect(parse({ a: { command: "npx" } })).toEqual({
      a: { name: "a", kind: "stdio", command: "npx", args: [], env: {}, origin: file },
    });
  });

  test("an http entry gets empty headers by default", () => {
    expect(parse({ h: { url: "https://x.test/mcp" } }).h).toEqual({
      name: "h",
      kind: "http",
      url: "https://x.test/mcp",
      headers: {},
      origin: file,
    });
  });

  test("type stdio, http and streamable-http are accepted", () => {
    const got = parse({
      s: { type: "stdio", command: "x" },
      h: { type: "http", url: "http://x.test" },
      t: { type: "streamable-http", url: "http://x.test" },
    });
    expect(Object.values(got).map((s) => s.kind)).toEqual(["stdio", "http", "http"]);
  });

  test("type sse, or an untyped url ending in /sse, is the legacy HTTP+SSE transport; an explicit http type wins", () => {
    const got = parse(
      {
        typed: { type: "sse", url: "http://x.test/events" },
        bySuffix: { url: "http://x.test/sse?key=1" },
        byVariable: { url: "${BASE}/sse" },
        explicit: { type: "http", url: "http://x.test/sse" },
        plain: { url: "http://x.test/mcp" },
      },
      { BASE: "http://x.test" },
    );
    expect(Object.fromEntries(Object.entries(got).map(([n, s]) => [n, s.kind === "http" ? s.transport : "stdio"]))).toEqual({
      typed: "sse",
      bySuffix: "sse",
      byVariable: "sse",
      explicit: undefined,
      plain: undefined,
    });
  });

  test("type sse with command is an error naming the fix", () => {
    expect(problem({ old: { type: "sse", command: "x" } })).toContain('is "sse" but the entry has command');
  });

  test("an unknown type lists the accepted ones", () => {
    expect(problem({ a: { type: "ws", url: "ws://x" } })).toContain("must be one of stdio, http, streamable-http");
  });

  test("an unknown key names the key and the accepted keys, with a did-you-mean", () => {
    expect(problem({ a: { command: "x", agrs: [] } })).toBe(
      '/proj/.mcpx.json: key mcpServers.a.agrs: unknown key (did you mean "args"?); ' +
        "a stdio server (command) accepts type, command, args, env, cwd, enabledTools, disabledTools, protocolVersion, roots",
    );
    expect(problem({ a: { url: "http://x.test", disabled: true } })).toContain(
      "key mcpServers.a.disabled: unknown key; an http server (url) accepts type, url, headers",
    );
  });

  test("a stdio key in an http entry says which kind it belongs to", () => {
    expect(problem({ a: { url: "http://x.test", env: {} } })).toContain('"env" belongs to stdio servers (command)');
  });

  test("both command and url is an error", () => {
    expect(problem({ a: { command: "x", url: "http://x.test" } })).toContain("has both command and url");
  });

  test("neither command nor url is an error", () => {
    expect(problem({ a: {} })).toContain("needs command (a program mcpx starts, stdio) or url");
  });

  test("a type that disagrees with the entry is an error", () => {
    expect(problem({ a: { type: "stdio", url: "http://x.test" } })).toContain('is "stdio" but the entry has url');
    expect(problem({ a: { type: "http", command: "x" } })).toContain('is "http" but the entry has command');
    expect(problem({ a: { type: "http" } })).toContain("key mcpServers.a.url: is missing: an http server needs url");
  });

  test("a number in env is an error naming the variable and saying to quote it", () => {
    expect(problem({ a: { command: "x", env: { PORT: 8080 } } })).toContain(
      'key mcpServers.a.env.PORT: must be a string (quote numbers and booleans, e.g. "8080")',
    );
  });

  test("args that are not an array of strings are an error naming the item", () => {
    expect(problem({ a: { command: "x", args: "-y pkg" } })).toContain("key mcpServers.a.args: must be an array of strings");
    expect(problem({ a: { command: "x", args: ["a", 2] } })).toContain("key mcpServers.a.args[1]: must be a string");
  });

  test("an empty command is an error", () => {
    expect(problem({ a: { command: "" } })).toContain("key mcpServers.a.command: must not be empty");
    expect(problem({ a: { command: "${C:-}" } })).toContain("is empty after expanding variables");
  });

  test("an entry or mcpServers that is not an object is an error", () => {
    expect(problem({ a: ["npx"] })).toContain("key mcpServers.a: must be an object with command");
    expect(problem({ a: null })).toContain("key mcpServers.a: must be an object");
    expect(problem([])).toContain("key mcpServers: must be an object of server entries");
  });

  test("variables expand in command, args, env values, cwd, url and header values, never in names", () => {
    const env = { BIN: "node", TOK: "s3cret", DIR: "/srv", BASE: "https://x.test" };
    const got = parse(
      {
        s: { command: "${BIN}", args: ["--t=${TOK}"], env: { "${TOK}": "${TOK}" }, cwd: "${DIR}/app" },
        h: { url: "${BASE}/mcp", headers: { Authorization: "Bearer ${TOK}" } },
      },
      env,
    );
    expect(got.s).toMatchObject({ command: "node", args: ["--t=s3cret"], env: { "${TOK}": "s3cret" }, cwd: "/srv/app" });
    expect(got.h).toMatchObject({ url: "https://x.test/mcp", headers: { Authorization: "Bearer s3cret" } });
  });

  test("an unset variable is an error naming the file, the key path and the variable", () => {
    expect(problem({ gh: { url: "https://x.test", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } } })).toBe(
      "/proj/.mcpx.json: key mcpServers.gh.headers.Authorization: variable GITHUB_TOKEN is not " +
        "set: set it, or write ${GITHUB_TOKEN:-default} to give a default",
    );
  });

  test("an http entry's oauth gives a pre-registered client, its secret taken from a variable", () => {
    const got = parse(
      { n: { url: "https://x.test/mcp", oauth: { clientId: "mcpx-${ENV_NAME}", clientSecret: "${NOTES_SECRET}" } } },
      {
        ENV_NAME: "prod",
        NOTES_SECRET: "s3cret",
      },
    );
    expect(got.n).toMatchObject({ kind: "http", oauth: { clientId: "mcpx-prod", clientSecret: "s3cret" } });
    expect(parse({ n: { url: "https://x.test/mcp", oauth: { clientId: "public-one" } } }).n).toMatchObject({ oauth: { clientId: "public-one" } });
  });

  test("a bad oauth names the key and what it accepts", () => {
    const url = "https://x.test/mcp";
    expect(problem({ n: { url, oauth: { clientId: "c", clientSecret: "literal" } } })).toContain(
      'key mcpServers.n.oauth.clientSecret: must be a ${VAR} reference, e.g. "${NOTES_CLIENT_SECRET}"',
    );
    expect(problem({ n: { url, oauth: { clientSecret: "${S}" } } }, { S: "x" })).toContain("key mcpServers.n.oauth: needs clientId");
    expect(problem({ n: { url, oauth: { clientId: "c", client_secret: "${S}" } } })).toContain(
      "key mcpServers.n.oauth.client_secret: must be an object with clientId and, for a confidential client, clientSecret",
    );
    expect(problem({ n: { url, oauth: "c" } })).toContain("key mcpServers.n.oauth: must be an object with clientId");
    expect(problem({ n: { url, oauth: { clientId: "c" }, headers: { authorization: "Bearer t" } } })).toContain(
      "key mcpServers.n.oauth: is given with an Authorization header",
    );
    expect(problem({ n: { command: "x", oauth: { clientId: "c" } } })).toContain('"oauth" belongs to http servers (url)');
    expect(problem({ n: { url, oauth: { clientMetadataUrl: "http://x.test/c.json" } } })).toContain(
      "key mcpServers.n.oauth.clientMetadataUrl: must be an https:// URL with a path",
    );
    expect(problem({ n: { url, oauth: { clientId: "c", clientMetadataUrl: "https://x.test/c.json" } } })).toContain(
      "key mcpServers.n.oauth: needs clientId (a client registered beforehand) or clientMetadataUrl",
    );
    expect(problem({ n: { url, oauth: {} } })).toContain("key mcpServers.n.oauth: needs clientId");
    expect(problem({ n: { url, oauth: { clientMetadataUrl: "https://x.test/c.json", clientSecret: "${S}" } } }, { S: "x" })).toContain(
      "key mcpServers.n.oauth.clientSecret: goes with clientId",
    );
    expect(parse({ n: { url, oauth: { clientMetadataUrl: "https://x.test/mcpx/client.json" } } }).n).toMatchObject({
      oauth: { clientMetadataUrl: "https://x.test/mcpx/client.json" },
    });
    expect(problem({ n: { url, oauth: { clientId: "c", clientSecret: "${NOPE}" } } })).toContain(
      "key mcpServers.n.oauth.clientSecret: variable NOPE is not set",
    );
  });

  test("a url that is not http(s) after expansion is an error", () => {
    expect(problem({ a: { url: "${HOST}/mcp" } }, { HOST: "x.test" })).toContain('key mcpServers.a.url: "x.test/mcp" is not an http:// or https:// URL');
  });

  test("a relative cwd resolves against the config file's directory", () => {
    expect(parse({ a: { command: "x", cwd: "tools/srv" } }).a).toMatchObject({ cwd: "/proj/tools/srv" });
    expect(parse({ a: { command: "x", cwd: "/abs" } }).a).toMatchObject({ cwd: "/abs" });
  });

  test("a cwd starting with ~ is an error suggesting ${HOME}", () => {
    expect(problem({ a: { command: "x", cwd: "~/srv" } })).toContain('write "${HOME}/…" instead');
  });

  test("a nearer file's server replaces a farther one's entirely, keeping first-declared order", () => {
    const far: Record<string, ServerConfig> = {
      a: { name: "a", kind: "stdio", command: "far", args: ["x"], env: { K: "v" }, origin: "far" },
      b: { name: "b", kind: "http", url: "http://b", headers: {}, origin: "far" },
    };
    const near: Record<string, ServerConfig> = {
      c: { name: "c", kind: "http", url: "http://c", headers: {}, origin: "near" },
      a: { name: "a", kind: "http", url: "http://a", headers: {}, origin: "near" },
    };
    const merged = mergeServers([
      { servers: far, broken: {} },
      { servers: near, broken: {} },
    ]).servers;
    expect(Object.keys(merged)).toEqual(["a", "b", "c"]);
    expect(merged.a).toEqual(near.a!);
  });
});

describe("loading config", () => {
  const root = tempRoot("mcpx-config-");

  test("a file that exists but does not parse names the file and line", () => {
    const dir = join(root, "bad");
    const path = write(join(dir, ".mcpx.json"), '{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {}\n  }\n}\n');
    const err = configError(() => loadConfig({ cwd: dir, env: {} }));
    expect(err.message).toStartWith(`${path}:4:5: expected a comma or closing brace`);
  });

  test("a broken server entry is kept with its error, which carries the file, line and key path; the others load", () => {
    const dir = join(root, "badentry");
    const path = write(
      join(dir, ".mcpx.json"),
      '{\n  "mcpServers": {\n    "a": {\n      "command": "x",\n      "hedaers": {}\n    },\n    "ok": {"command": "y"}\n  }\n}\n',
    );
    const got = loadConfig({ cwd: dir, env: {} });
    expect(got.broken.a!.error.message).toStartWith(`${path}:5:7: key mcpServers.a.hedaers: unknown key`);
    expect(Object.keys(got.servers)).toEqual(["ok"]);
  });

  test("a nearer file's working entry replaces a farther broken one of the same name, and the other way round", () => {
    const home = join(root, "brokenchain", "home");
    write(join(home, ".config", "mcpx", "config.json"), '{"mcpServers": {"a": {"command": "${UNSET_A}"}, "b": {"command": "b"}}}');
    write(join(root, "brokenchain", "w", ".mcpx.json"), '{"mcpServers": {"a": {"command": "a"}, "b": {"command": "${UNSET_B}"}}}');
    const got = loadConfig({ cwd: join(root, "brokenchain", "w"), env: { HOME: home } });
    expect(Object.keys(got.servers)).toEqual(["a"]);
    expect(Object.keys(got.broken)).toEqual(["b"]);
  });

  test("a file that is not an object is an error", () => {
    expect(configError(() => parseConfigText("f", "[]", {})).message).toBe('f:1:1: a config file must hold one JSON object, e.g. {"mcpServers": {}}');
  });

  test("the chain merges servers, nearest winning, each remembering its file", () => {
    const home = join(root, "chain", "home");
    const user = write(join(home, ".config", "mcpx", "config.json"), '{"mcpServers": {"a": {"command": "user"}, "u": {"command": "u"}}}');
    const project = write(join(root, "chain", "w", ".mcpx.json"), '{"mcpServers": {"a": {"url": "http://near.test"}}}');
    const got = loadConfig({ cwd: join(root, "chain", "w"), env: { HOME: home } });
    expect(got.files.map((f) => f.path)).toEqual([user, project]);
    expect(got.servers.a).toEqual({ name: "a", kind: "http", url: "http://near.test", headers: {}, origin: project });
    expect(got.servers.u).toMatchObject({ command: "u", origin: user });
  });

  test("data keeps every other top-level key as parsed, nested or literally dotted, without mcpServers", () => {
    const dir = join(root, "data");
    write(join(dir, ".mcpx.json"), '{"script": {"before": ["a", null]}, "script.after": ["b"], "mcpServers": {}}');
    const [file] = loadConfig({ cwd: dir, env: {} }).files;
    expect(file!.data).toEqual({ script: { before: ["a", null] }, "script.after": ["b"] });
    expect(locateKey(file!.text, ["script.after"])).toEqual({ line: 1, column: 37 });
  });

  test("variables come from the env passed in, not the process environment", () => {
    const dir = join(root, "vars");
    write(join(dir, ".mcpx.json"), '{"mcpServers": {"a": {"command": "${MCPX_TEST_BIN}"}}}');
    expect(loadConfig({ cwd: dir, env: { MCPX_TEST_BIN: "given" } }).servers.a).toMatchObject({ command: "given" });
    process.env.MCPX_TEST_ONLY_IN_PROCESS = "leak";
    write(join(dir, "p.json"), '{"mcpServers": {"a": {"command": "${MCPX_TEST_ONLY_IN_PROCESS}"}}}');
    expect(loadConfig({ cwd: dir, env: {}, explicit: "p.json" }).broken.a!.error.detail).toContain("MCPX_TEST_ONLY_IN_PROCESS is not set");
    delete process.env.MCPX_TEST_ONLY_IN_PROCESS;
  });

  test("a relative cwd resolves against the directory of the file that declared it", () => {
    const home = join(root, "cwd", "home");
    const user = write(join(home, ".config", "mcpx", "config.json"), '{"mcpServers": {"a": {"command": "x", "cwd": "srv"}}}');
    const got = loadConfig({ cwd: join(root, "cwd", "w"), env: { HOME: home } });
    expect(got.servers.a).toMatchObject({ cwd: join(dirname(user), "srv") });
  });

  test("with no config files there are no files and no servers", () => {
    const dir = join(root, "none");
    mkdirSync(dir, { recursive: true });
    expect(loadConfig({ cwd: dir, env: {} })).toEqual({ files: [], servers: {}, broken: {} });
  });

  test("an explicit file that is missing is an error", () => {
    expect(configError(() => loadConfig({ cwd: root, env: {}, explicit: "nope.json" })).detail).toContain("named by --config");
  });
});

describe("jsonc error names", () => {
  test("are jsonc-parser's own, code for code (the parser module is loaded without its main entry)", async () => {
    const { printParseErrorCode } = await import("jsonc-parser");
    const { ERROR_NAMES } = await import("../../lib/config/jsonc.ts");
    expect(ERROR_NAMES.length).toBe(16);
    for (const [i, name] of ERROR_NAMES.entries()) expect(printParseErrorCode((i + 1) as Parameters<typeof printParseErrorCode>[0]) as string).toBe(name);
  });
});
