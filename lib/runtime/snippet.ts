// How an `mcpx exec` snippet becomes a module. A snippet with imports or exports is a module as
// written (`export default …` sets the result). Any other snippet is the body of an async function
// whose return value is the result, so `mcpx exec 'return 5'` prints 5 and `await` works anywhere
// in it; `1+1` alone returns nothing (write `return 1+1`). A snippet that does not parse either
// way is left as written, so the runtime reports the syntax error with its line and column.

const transpiler = new Bun.Transpiler({ loader: "ts" });

// On the snippet's first line, so every line keeps its number in errors and stack traces.
const OPEN = "export default await (async () => {";
const CLOSE = "\n})();\n";

/** the module text for a snippet's source */
export function snippetModule(source: string): string {
  const asModule = scan(source);
  if (asModule && (asModule.imports.length > 0 || asModule.exports.length > 0)) return source;
  const body = OPEN + source + CLOSE;
  return scan(body) ? body : source;
}

function scan(code: string): { imports: unknown[]; exports: string[] } | undefined {
  try {
    return transpiler.scan(code);
  } catch {
    return undefined;
  }
}
