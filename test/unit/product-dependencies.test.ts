// A package the product imports must be one it declares in `dependencies`: a devDependency (or a
// package that is only there because another one needs it) works only while npm happens to hoist it
// where the product can see it, and an install for production leaves devDependencies out.

import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** the package a bare specifier names: `@scope/name/deep.js` is `@scope/name`, `name/deep` is `name` */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

test("every package that lib/, cmd/ and launcher/ import is declared in dependencies", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const imports = /^\s*(?:import|export)\s[^;]*?\bfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"|\bimport\("([^"]+)"\)/gm;
  const undeclared = new Set<string>();
  for (const file of ["lib", "cmd", "launcher"].flatMap((d) => sources(join(ROOT, d)))) {
    for (const m of readFileSync(file, "utf8").matchAll(imports)) {
      const specifier = m[1] ?? m[2] ?? m[3]!;
      // relative paths, node:/bun:/file: URLs and the text of a message that shows an import are not packages
      if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/.*)?$/.test(specifier) || specifier === "bun") continue;
      if (!Object.hasOwn(pkg.dependencies, packageOf(specifier))) undeclared.add(`${packageOf(specifier)} (${file.slice(ROOT.length + 1)})`);
    }
  }
  expect([...undeclared]).toEqual([]);
});
