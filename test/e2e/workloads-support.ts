// Shared pieces of the workload files: the payload ladder's rungs, scripts that move a
// payload one way each (script → tool argument, tool → script result, script → caller as stdout and
// returned value), and the checks, which compare a length and a sha256, never only a length, and
// never print megabytes into a failure. Payloads are generated (fixtures/servers/payload.ts) by the
// script, the fake server and the test alike, so no big file is committed.

import { expect } from "bun:test";
import { join } from "node:path";
import { payload, sha256 } from "../../fixtures/servers/payload.ts";
import { ROOT } from "./harness.ts";

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** the issue's payload ladder */
export const RUNGS = [
  { label: "300 KB", size: 300 * KiB },
  { label: "2 MB", size: 2 * MiB },
  { label: "8 MB", size: 8 * MiB },
] as const;

/**
 * Every run gets this --timeout (or ExecOptions.timeout), well inside bun test's 60 s per test
 * (test/run.ts), so a hung run fails as exit 124 with mcpx's own message instead of a stuck suite.
 */
export const RUN_TIMEOUT = "40s";
/** a test that drives a run: its timeout leaves room for RUN_TIMEOUT and the teardown */
export const TEST_TIMEOUT_MS = 55_000;
/** the harness kills an mcpx process that outlives this (commands that take no --timeout) */
export const KILL_AFTER_MS = 45_000;

/** a sandboxed mcpx_exec may import it only through exec.sandboxAllow (workloads-ladder-serve.test.ts) */
export const PAYLOAD_MODULE = join(ROOT, "fixtures/servers/payload.ts");
/** the first line of a script that builds or hashes payloads; node:crypto only, so Bun, Deno and Node run it */
export const IMPORT_PAYLOAD = `import { payload, sha256 } from ${JSON.stringify(PAYLOAD_MODULE)};`;

const cache = new Map<string, string>();
/** "<length> <sha256>" of payload(size, seed): what the fake server's sha256 tool answers for it */
export function digestOf(size: number, seed: number): string {
  const key = `${size}/${seed}`;
  let d = cache.get(key);
  if (d === undefined) {
    d = `${size} ${sha256(payload(size, seed))}`;
    cache.set(key, d);
  }
  return d;
}

/** "<length> <sha256>" of a text that arrived */
function digest(text: string): string {
  return `${text.length} ${sha256(text)}`;
}

/** the text is payload(size, seed) plus `tail`, compared by length and hash */
export function expectPayload(text: unknown, size: number, seed: number, tail = ""): void {
  expect(typeof text).toBe("string");
  expect(digest(text as string)).toBe(tail === "" ? digestOf(size, seed) : digest(payload(size, seed) + tail));
}

/** script → tool: builds the payload, sends it as an argument; the server's own hash of what it got is printed and checked in the script */
export function argumentScript(size: number, seed: number): string {
  return `${IMPORT_PAYLOAD}
const p = payload(${size}, ${seed});
const got = await fake.sha256({ data: p });
if (got !== p.length + " " + sha256(p)) throw new Error("the server received " + got);
console.log(got);`;
}

/** tool → script: asks the server for the payload and prints the length and hash of what arrived */
export function resultScript(size: number, seed: number): string {
  return `${IMPORT_PAYLOAD}
const r = await fake.bytes({ size: ${size}, seed: ${seed} });
console.log(r.length + " " + sha256(r));`;
}

/** script → caller: prints payload(size, seed) on stdout and (unless `returns` is false) returns payload(size, seed + 1) */
export function outputScript(size: number, seed: number, returns = true): string {
  return `${IMPORT_PAYLOAD}
console.log(payload(${size}, ${seed}));${returns ? `\nexport default () => payload(${size}, ${seed + 1});` : ""}`;
}
