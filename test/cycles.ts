// The import-cycle check (make cycles): no file imports itself through others, and no folder does
// either, counting type-only and dynamic imports. dpdm reads the imports (without its --transform,
// so `import type` counts: a type cycle is still two modules that cannot be understood apart).
// A folder is a concern: lib/<name> (its subfolders belong to it, as lib/hooks/actions does),
// cmd, launcher, and a file directly under lib/ stands alone. Exits 1 on any cycle, naming the
// imports that close it.
// Usage: bun run test/cycles.ts

import { parseCircular, parseDependencyTree } from "dpdm";

const SOURCES = ["cmd/**/*.ts", "lib/**/*.ts", "launcher/**/*.ts"];

const tree = await parseDependencyTree(SOURCES, { context: process.cwd(), transform: false, skipDynamicImports: false });
const local = (id: string | null): id is string => id !== null && !id.includes("node_modules");

/** the concern a file belongs to */
function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : file;
  return parts[0]!;
}

// folder → folder, with the file imports behind each edge (to say which imports close a cycle)
const edges = new Map<string, Map<string, string[]>>();
for (const [file, deps] of Object.entries(tree)) {
  for (const dep of deps ?? []) {
    if (!local(dep.id)) continue;
    const [from, to] = [folderOf(file), folderOf(dep.id)];
    if (from === to) continue;
    const out = edges.get(from) ?? new Map<string, string[]>();
    edges.set(from, out);
    out.set(to, [...(out.get(to) ?? []), `${file} -> ${dep.id}`]);
  }
}

/** the strongly connected folders (Tarjan): every group of more than one folder is a cycle */
function folderCycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return groups;
}

const fileCycles = parseCircular(tree, false);
const folders = folderCycles();
console.log(`${Object.keys(tree).filter(local).length} files read`);
for (const c of fileCycles) console.log(`file cycle: ${[...c, c[0]].join(" -> ")}`);
for (const group of folders) {
  console.log(`folder cycle: ${group.join(", ")}`);
  for (const from of group) {
    for (const [to, imports] of edges.get(from) ?? []) if (group.includes(to)) for (const i of imports) console.log(`  ${i}`);
  }
}
console.log(`${fileCycles.length} file cycles, ${folders.length} folder cycles`);
process.exit(fileCycles.length + folders.length > 0 ? 1 : 0);
