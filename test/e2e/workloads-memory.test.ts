// @modelcontextprotocol/server-memory (node_modules/.bin/mcp-server-memory) used the way a user
// would: a script builds a knowledge graph of a few hundred entities, relations and
// observations, then queries it with search_nodes, open_nodes and read_graph and checks every
// answer against the graph it built; a second run, with a fresh server process, finds the graph in
// the memory file. The graph is a pure function of its size, so the test knows every answer.

import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { KILL_AFTER_MS, RUN_TIMEOUT, TEST_TIMEOUT_MS } from "./workloads-support.ts";

const sb = sandbox();
const MEMORY_FILE = join(sb.dir, "memory.jsonl");
writeConfig(sb, ".mcpx.json", {
  mcpServers: { memory: { command: join(ROOT, "node_modules/.bin/mcp-server-memory"), args: [], env: { MEMORY_FILE_PATH: MEMORY_FILE } } },
});
const run = (source: string) => mcpx(sb, ["exec", "--timeout", RUN_TIMEOUT, source], { killAfterMs: KILL_AFTER_MS });

const PEOPLE = 300;
const ORGS = 12;
const COLOURS = 7;

// One source for the script and the test: person-i likes colour-(i % 7), works at org-(i % 12) and
// knows person-(i + 1); each org is based in one of three cities.
const GRAPH =
  `
const PEOPLE = ${PEOPLE}, ORGS = ${ORGS}, COLOURS = ${COLOURS};
const person = (i: number) => "person-" + String(i).padStart(3, "0");
const org = (i: number) => "org-" + String(i).padStart(2, "0");
const people = Array.from({ length: PEOPLE }, (_, i) => ({ name: person(i), entityType: ` +
  `"person", observations: ["likes colour-" + (i % COLOURS), "badge " + (1000 + i)] }));
const orgs = Array.from({ length: ORGS }, (_, i) => ({ name: org(i), entityType: "organisation", observations: ["based in city-" + (i % 3)] }));
const relations = [
  ...Array.from({ length: PEOPLE }, (_, i) => ({ from: person(i), to: org(i % ORGS), relationType: "works_at" })),
  ...Array.from({ length: PEOPLE - 1 }, (_, i) => ({ from: person(i), to: person(i + 1), relationType: "knows" })),
];`;

// "<n> entities, <n> relations" and the checks' verdicts, one per line; "ok" lines are what the test wants
const CHECKS = `
const fail: string[] = [];
const check = (what: string, ok: boolean) => { if (!ok) fail.push(what); };
const names = (g: { entities: Array<{ name: string }> }) => g.entities.map((e) => e.name).sort();
const touches = (g: { relations: Array<{ from: string; to: string }> }, set: Set<string>) => g.relations.every((r) => set.has(r.from) || set.has(r.to));

const graph = await memory.read_graph({});
check("read_graph has every entity", JSON.stringify(names(graph)) === JSON.stringify([...people, ...orgs].map((e) => e.name).sort()));
check("read_graph has every relation", graph.relations.length === relations.length);
check("observations survive", graph.entities.find((e: { name: string }) => e.name === person(42)).observations.includes("badge 1042"));

const colour3 = await memory.search_nodes({ query: "colour-3" });
const want3 = people.filter((_, i) => i % COLOURS === 3).map((p) => p.name).sort();
check("search_nodes finds exactly the people who like colour-3", JSON.stringify(names(colour3)) === JSON.stringify(want3));
check("search_nodes' relations touch what it found", touches(colour3, new Set(want3)));

const city1 = await memory.search_nodes({ query: "city-1" });
check("search_nodes finds the orgs of city-1", JSON.stringify(names(city1)) === JSON.stringify(orgs.filter((_, i) => i % 3 === 1).map((o) => o.name).sort()));

const opened = await memory.open_nodes({ names: [person(10), person(11), org(10)] });
check("open_nodes returns the three", JSON.stringify(names(opened)) === JSON.stringify([org(10), person(10), person(11)].sort()));
const rel = (r: { from: string; to: string; relationType: string }) => r.from + " " + r.relationType + " " + r.to;
const openedRels = opened.relations.map(rel);
for (const want of [person(10) + " knows " + person(11), person(10) + " works_at " + org(10)]) check("open_nodes has " + want, openedRels.includes(want));
console.log(graph.entities.length + " entities, " + graph.relations.length + " relations");
console.log(fail.length === 0 ? "ok" : "FAILED: " + fail.join("; "));`;

test(
  "a script builds a graph of a few hundred entities, relations and observations and every query answers from it",
  async () => {
    const r = await run(
      `${GRAPH}
const made = await memory.create_entities({ entities: [...people, ...orgs] });
const linked = await memory.create_relations({ relations });
console.log("created " + made.entities.length + " entities, " + linked.relations.length + " relations");
const added = await memory.add_observations({ observations: people.filter((_, i) => i % ` +
        `50 === 0).map((p) => ({ entityName: p.name, contents: ["checked in"] })) });
console.log("added " + added.results.length);
${CHECKS}
const checkedIn = await memory.search_nodes({ query: "checked in" });
console.log("checked in: " + checkedIn.entities.map((e: { name: string }) => e.name).sort().join(","));`,
    );
    expectExit(r, 0);
    const edges = PEOPLE + PEOPLE - 1;
    const checkedIn = Array.from({ length: PEOPLE / 50 }, (_, k) => `person-${String(k * 50).padStart(3, "0")}`).join(",");
    expect(r.stdout).toBe(
      `created ${PEOPLE + ORGS} entities, ${edges} ` +
        `relations\nadded ${PEOPLE / 50}\n${PEOPLE + ORGS} entities, ${edges} ` +
        `relations\nok\nchecked in: ${checkedIn}\n`,
    );

    // a second run starts a fresh server process, which reads the graph back from MEMORY_FILE_PATH
    const again = await run(`${GRAPH}\n${CHECKS}`);
    expectExit(again, 0);
    expect(again.stdout).toBe(`${PEOPLE + ORGS} entities, ${edges} relations\nok\n`);
  },
  TEST_TIMEOUT_MS,
);

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
