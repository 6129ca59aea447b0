// A server given on the command line instead of in a config file: `--stdio "cmd args"` or
// `--http-url URL`, named by `--name` or by the rule in adHocName. Pure: the command passes its flag
// values in and merges the result with the configured servers.

import { basename } from "node:path";
import { endsInSse, type ServerConfig } from "./server-config.ts";

/** shell-quote, loaded only for an ad-hoc --stdio: every run/exec/call loads this module, few use the flag */
const shellParse: typeof import("shell-quote").parse = (...args) => (require("shell-quote") as typeof import("shell-quote")).parse(...args);

/** programs that start another program: the server's name comes from what they start */
const RUNNERS = new Set(["npx", "bunx", "pnpx", "uvx", "pipx", "node", "bun", "deno", "python", "python3", "uv", "pnpm", "yarn", "npm", "dlx", "run", "exec"]);

export interface AdHocInput {
  stdio?: string;
  httpUrl?: string;
  name?: string;
  /** for $VAR in --stdio, expanded as a shell would (unset = empty) */
  env: Record<string, string | undefined>;
}

/** the ad-hoc server, or undefined when neither --stdio nor --http-url was given; throws a message naming the flag */
export function adHocServer(input: AdHocInput, fail: (message: string) => never): ServerConfig | undefined {
  if (input.stdio !== undefined && input.httpUrl !== undefined)
    fail("--stdio and --http-url each give one ad-hoc server: give one of them (configure more servers in .mcpx.json)");
  if (input.name !== undefined && input.stdio === undefined && input.httpUrl === undefined)
    fail('--name names an ad-hoc server: give it with --stdio "COMMAND ARGS" or --http-url URL');
  if (input.name !== undefined && !/^[A-Za-z0-9_-]+$/.test(input.name))
    fail(`--name ${input.name}: use letters, digits, _ and - (a dot would split SERVER.TOOL)`);
  if (input.stdio !== undefined) {
    const argv = splitCommand(input.stdio, input.env, fail);
    const name = input.name ?? adHocName(argv);
    return { name, kind: "stdio", command: argv[0]!, args: argv.slice(1), env: {}, origin: `--stdio ${JSON.stringify(input.stdio)}` };
  }
  if (input.httpUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(input.httpUrl);
    } catch {
      return fail(`--http-url ${input.httpUrl} is not a URL: give the server's Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") fail(`--http-url ${input.httpUrl}: use an http:// or https:// URL`);
    // the same rule as a config url: one ending in /sse is the legacy HTTP+SSE transport
    const sse = endsInSse(url.href) ? { transport: "sse" as const } : {};
    return { name: input.name ?? hostName(url), kind: "http", url: url.href, headers: {}, origin: `--http-url ${url.href}`, ...sse };
  }
  return undefined;
}

/**
 * Splits `--stdio` like a shell would, without a shell (shell-quote): '…' and "…" quoting, backslash
 * escapes and $VAR are understood; a shell operator (|, &&, ;, >, a glob, a comment) is refused,
 * since nothing would run it. Say `--stdio "sh -c '…'"` to ask for a shell.
 */
export function splitCommand(text: string, env: Record<string, string | undefined>, fail: (message: string) => never): string[] {
  const tokens = shellParse(text, (key) => env[key] ?? "");
  const words: string[] = [];
  for (const t of tokens) {
    if (typeof t === "string") words.push(t);
    else
      fail(
        `--stdio ${JSON.stringify(text)}: ${"op" in t ? `"${t.op === "glob" ? (t as { pattern: string }).pattern : t.op}"` : "a comment"} ` +
          `is shell syntax, and no shell runs the command; quote it, or say --stdio "sh -c '…'" to ask for one`,
      );
  }
  if (words.length === 0 || words[0] === "") fail('--stdio needs a command: --stdio "npx -y @modelcontextprotocol/server-everything"');
  return words;
}

/**
 * The name of an ad-hoc stdio server: the last path segment of the first word that is not a runner
 * (npx, bunx, uvx, node, bun, deno, python, …) or a flag, without @scope, @version and extension,
 * and without an "mcp-server-"/"server-" prefix or a "-mcp"/"-mcp-server" suffix; what is left,
 * with any other character made "-". `npx -y @modelcontextprotocol/server-everything` → everything,
 * `python3 weather_server.py` → weather_server, `./bin/mcp-server-git` → git.
 */
export function adHocName(argv: readonly string[]): string {
  const word = argv.find((w) => !w.startsWith("-") && !RUNNERS.has(basename(w))) ?? argv[0]!;
  let name = basename(word.replace(/^@[^/]+\//, "").replace(/(.)@[^/]*$/, "$1")).replace(/\.(m?[jt]s|py|c?js|exe)$/, "");
  name = name.replace(/^(mcp-server-|server-)/, "").replace(/(-mcp-server|-mcp|-server)$/, "");
  return name.replace(/[^A-Za-z0-9_-]/g, "-") || "stdio";
}

/** an ad-hoc HTTP server's name: the URL's host name with "." and ":" as "-" (localhost, example-com, 127-0-0-1) */
export function hostName(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").replace(/[^A-Za-z0-9_-]/g, "-");
}
