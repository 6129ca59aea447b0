// snippetModule: a snippet without imports or exports is a function body (return sets the result);
// one with them is a module as written; one that parses neither way is left for the runtime to report.

import { describe, expect, test } from "bun:test";
import { snippetModule } from "../../lib/runtime/snippet.ts";

const wrapped = (s: string) => snippetModule(s).startsWith("export default await (async () => {");

describe("snippetModule", () => {
  test("a bare return, with or without await, becomes the result", () => {
    expect(wrapped("return 5")).toBe(true);
    expect(wrapped("const x = await Promise.resolve(1);\nreturn x")).toBe(true);
  });

  test("a snippet that only prints is a function body too, so await works in it", () => {
    expect(wrapped('console.log(await fake.echo({ message: "hi" }))')).toBe(true);
  });

  test("a snippet with an import or an export is a module as written", () => {
    for (const s of ['import { join } from "node:path";\nconsole.log(join("a", "b"))', "export default () => 1", "export const a = 1"]) {
      expect(snippetModule(s)).toBe(s);
    }
  });

  test("a snippet that does not parse is left as written, for the runtime to report with its position", () => {
    expect(snippetModule("const x = ;")).toBe("const x = ;");
  });

  test("the first line keeps its line number: the wrapper opens on it", () => {
    const text = snippetModule("a()\nb()\nreturn c()");
    expect(text.split("\n")[2]).toBe("return c()");
  });

  test("a snippet ending in a line comment still closes", () => {
    expect(snippetModule("return 1 // done").endsWith("\n})();\n")).toBe(true);
  });
});
