// ${VAR} and ${VAR:-default} in the string values of server entries, so a shared config can say
// "Authorization": "Bearer ${GITHUB_TOKEN}" without the secret living in the file.
//
// Rules (decided here; the docs table should say the same):
//   ${NAME}            NAME's value; unset is an error (set-but-empty gives ""), never a silent "".
//   ${NAME:-default}   the default when NAME is unset or empty (shell semantics of :-). The default
//                      may itself contain references, expanded only when it is used; it ends at the
//                      first unmatched "}", so a default cannot contain a literal "}".
//   $${                a literal "${". Chosen over \${ because a backslash must itself be escaped in
//                      JSON ("\\${") and is easy to get wrong. Only "$${" is special: a "$$" not
//                      followed by "{" stays "$$", so args like ["sh","-c","echo $$"] keep their meaning.
//   any other $        literal ("$HOME" is NOT expanded: only the braced form is).
// NAME is [A-Za-z_][A-Za-z0-9_]*; anything else after "${" (other shell operators, an unclosed
// brace) is an error that says how to write it.

import type { JSONPath } from "jsonc-parser";
import type { Env } from "./find.ts";
import type { ServerConfig } from "./server-config.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * Expands the strings of one server entry: command, args, env values, cwd, url, header values, oauth.
 * Names (server names, env and header names) are never expanded. `fail` gets the key path inside
 * the entry (e.g. ["env", "TOKEN"]) so the error can name mcpServers.foo.env.TOKEN.
 */
export function expandServer(server: ServerConfig, env: Env, fail: (key: JSONPath, detail: string) => never): ServerConfig {
  const one = (value: string, ...key: JSONPath) => expandVars(value, env, (detail) => fail(key, detail));
  const map = (values: Record<string, string>, field: string) => Object.fromEntries(Object.entries(values).map(([k, val]) => [k, one(val, field, k)]));
  if (server.kind === "http") {
    const out: ServerConfig = { ...server, url: one(server.url, "url"), headers: map(server.headers, "headers") };
    if (server.oauth) {
      out.oauth = Object.fromEntries(Object.entries(server.oauth).map(([k, val]) => [k, one(val, "oauth", k)]));
    }
    return out;
  }
  const out: ServerConfig = {
    ...server,
    command: one(server.command, "command"),
    args: server.args.map((arg, i) => one(arg, "args", i)),
    env: map(server.env, "env"),
  };
  if (server.cwd !== undefined) out.cwd = one(server.cwd, "cwd");
  return out;
}

/** Expands one string; on a problem calls `fail` with what is wrong and how to fix it. */
export function expandVars(value: string, env: Env, fail: (detail: string) => never): string {
  return scan(value, 0, env, false, true, fail).out;
}

// Recursive descent: `nested` is true inside a default, where an unmatched "}" ends the scan;
// `use` is false while skipping a default that is not needed, so its unset variables are not errors.
function scan(s: string, start: number, env: Env, nested: boolean, use: boolean, fail: (detail: string) => never): { out: string; end: number } {
  let out = "";
  let i = start;
  while (i < s.length) {
    if (nested && s[i] === "}") return { out, end: i + 1 };
    if (s.startsWith("$${", i)) {
      out += "${";
      i += 3;
      continue;
    }
    if (!s.startsWith("${", i)) {
      out += s[i];
      i++;
      continue;
    }
    const name = NAME.exec(s.slice(i + 2))?.[0];
    if (name === undefined) {
      fail(
        `${JSON.stringify(s.slice(i, i + 12))} is not a variable reference: write \${NAME} with NAME made of letters, digits and _, or $\${ for a literal \${`,
      );
    }
    const after = i + 2 + name.length;
    const current = env[name];
    if (s[after] === "}") {
      if (use && current === undefined) {
        fail(`variable ${name} is not set: set it, or write \${${name}:-default} to give a default`);
      }
      out += current ?? "";
      i = after + 1;
      continue;
    }
    if (s.startsWith(":-", after)) {
      const fallback = current === undefined || current === "";
      const def = scan(s, after + 2, env, true, use && fallback, fail);
      out += fallback ? def.out : current;
      i = def.end;
      continue;
    }
    fail(`\${${name}${s.slice(after, after + 2)}…: only \${${name}} and \${${name}:-default} are supported (is a "}" missing?)`);
  }
  if (nested) fail(`a \${NAME:-default} is not closed: add the "}"`);
  return { out, end: i };
}
