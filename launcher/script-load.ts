// Loading the script and calling its entry: the script's URL handed to a dynamic import, errors of a
// script that does not load told in the user's terms, and its default or named export called.

import { info } from "./handoff.ts";

// exec snippets are written to the cache as snippets/snippet-HASH.ts; errors call them "snippet"
const SNIPPET_PATH = /[\\/]snippets[\\/]snippet-[0-9a-f]+\.ts$/;

/**
 * A script that does not load: a syntax error says where, as the user knows the script ("snippet
 * line 1:11", or the file's path and line:column), whichever runtime found it. Errors the script's
 * own top level throws pass through untouched.
 */
export function loadError(err: unknown): never {
  const path = info.script.path;
  const snippet = SNIPPET_PATH.test(path);
  type Built = { name?: string; message?: string; position?: { line?: number; column?: number } | null };
  const thrown = err as Built & { errors?: Built[] };
  // Bun: a BuildMessage with the position (an AggregateError of them for several: the first is where
  // it stopped), and no stack worth keeping: its only frame is `at <parse> (:0)`
  const e = thrown?.errors?.[0]?.name === "BuildMessage" ? thrown.errors[0]! : thrown;
  if (e?.name === "BuildMessage" && e.position?.line !== undefined) {
    const at = `${e.position.line}:${e.position.column ?? 0}`;
    const out = new SyntaxError(`${e.message} (${snippet ? `snippet line ${at}` : `${path}:${at}`})`);
    out.stack = `SyntaxError: ${out.message}`;
    throw out;
  }
  const missing = missingPackage(e?.message);
  if (missing && err instanceof Error) {
    try {
      err.message +=
        `\nmcpx does not install packages a script imports (exec.autoInstall is off): ` +
        `install ${missing} in the script's project (npm i ${missing}), or allow installs with ` +
        `exec.autoInstall true (MCPX_EXEC_AUTO_INSTALL=true)`;
    } catch {
      // a frozen error keeps its words
    }
  }
  // Deno and Node put the module's URL in the message: a snippet's cache path means nothing to its author
  if (snippet && err instanceof Error && typeof err.message === "string") {
    // the QuickJS sandbox has no URL; a snippet's path is the cache's, which encodeURI spells as URL does
    const url = typeof URL === "function" ? new URL(`file://${path}`).href : `file://${encodeURI(path)}`;
    if (err.message.includes(url) || err.message.includes(path)) {
      try {
        err.message = err.message.replaceAll(url + ":", "snippet line ").replaceAll(path + ":", "snippet line ");
      } catch {
        // a frozen error keeps its words
      }
    }
  }
  throw err;
}

/**
 * The script's URL, handed back through a call so that Deno cannot see it statically: a literal
 * `import("file:…")` puts the script in Deno's initial module graph, whose files (and every file they
 * import, `/home/u/.ssh/id_rsa` included) are loaded without read permission. Imported this way, the
 * sandbox's --allow-read decides what the script may load (decision 0008).
 */
export function scriptUrl(url: string): string {
  return url;
}

/**
 * The package a failed import names, when it is a package (not a relative or absolute file): Bun's
 * "Cannot find package 'x'", Deno's `Import "x" not a dependency` and its npm: cache misses.
 */
function missingPackage(message: string | undefined): string | undefined {
  if (typeof message !== "string") return undefined;
  const m =
    /Cannot find (?:package|module) '([^']+)'/.exec(message) ??
    /Import "([^"]+)" not a dependency/.exec(message) ??
    /"npm:(@?[^@"/]+(?:\/[^@"/]+)?)[^"]*"/.exec(message) ??
    /package "(@?[^"@]+)/.exec(message);
  const name = m?.[1];
  if (!name || /^(\.|\/|file:|node:|https?:)/.test(name)) return undefined;
  return name.replace(/^npm:/, "");
}

/** the default export gets the args array; a named export gets them spread */
export async function callEntry(mod: Record<string, unknown>): Promise<unknown> {
  const name = info.script.export;
  if (name) {
    const fn = mod[name];
    if (typeof fn !== "function") {
      const names = Object.keys(mod).filter((k) => typeof mod[k] === "function");
      throw new Error(`--export ${name}: ${info.script.path} has no exported function "${name}"; its exported functions: ${names.join(", ") || "none"}`);
    }
    return await fn(...info.script.args);
  }
  if (typeof mod.default === "function") return await mod.default(info.script.args);
  return mod.default;
}
