// The test command (make test, .ci/run): runs bun test over test/unit and test/e2e and ends with
// the line `N passed, N failed` that CI reads (bun test prints no such line, and prints its summary
// on stderr). Exits non-zero on any failure, and when no test ran at all.
// Usage: bun run test/run.ts [unit|e2e|PATH…]   (a PATH that is neither a file nor a folder picks
// the test files whose path contains it, as bun test's own filter does)
//
// The files are split into shards, each its own bun test process with its own scratch directory:
// one bun test runs its files one after another and leaves a core idle. MCPX_TEST_SHARDS sets how
// many (1 is one bun test over the paths as given); by default one per core, at most MAX_SHARDS.
// Files are dealt out heaviest first, each to the shard with the least so far, so the heavy files go
// to different shards; a file's cost is its seconds in test/weights.json, or for a file not in it,
// its size at the table's seconds per byte. MCPX_TEST_WEIGHTS=record writes the table anew from the
// run: a file's time runs from its first result to the next file's (bun test names a file when its
// first result comes), the shard's start and end closing the ends; record on a quiet machine.
// Each shard's output is shown a test file's block at a time behind the shard's [i/n], so a
// failure's text is never interleaved with another shard's.

import { spawn } from "bun";
import { running } from "../lib/process/proc-table.ts";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const MAX_SHARDS = 4;
const TEST_FILE = /\.test\.ts$/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => TEST_FILE.test(f))
    .map((f) => join(dir, f));
}

/** the test files the arguments name, relative to the repository, sorted */
function selected(args: string[]): string[] {
  const files = new Set<string>();
  for (const arg of args) {
    const path = resolve(ROOT, arg);
    let found: string[];
    if (existsSync(path) && statSync(path).isDirectory()) found = testFiles(path);
    else if (existsSync(path)) found = [path];
    else found = testFiles(join(ROOT, "test")).filter((f) => relative(ROOT, f).includes(arg));
    if (found.length === 0) fail(`no test file matches ${arg}: give a test file, a folder, unit, e2e, or part of a test file's path`);
    for (const f of found) files.add(relative(ROOT, f));
  }
  return [...files].sort();
}

function fail(message: string): never {
  console.error(`test/run.ts: ${message}`);
  console.log("0 passed, 1 failed");
  process.exit(2);
}

function shardCount(files: number): number {
  const raw = process.env.MCPX_TEST_SHARDS;
  if (raw === undefined || raw === "") return Math.max(1, Math.min(availableParallelism(), MAX_SHARDS, files));
  if (!/^[1-9]\d*$/.test(raw)) fail(`MCPX_TEST_SHARDS is ${JSON.stringify(raw)}: use a whole number of shards, 1 or more (1 runs one bun test)`);
  return Math.max(1, Math.min(Number(raw), files));
}

/** seconds each file is expected to take: the recorded figure, else its size at the table's rate */
function costs(files: string[]): Map<string, number> {
  const table = JSON.parse(readFileSync(join(import.meta.dir, "weights.json"), "utf8")) as Record<string, number>;
  const size = (f: string) => statSync(join(ROOT, f)).size;
  const known = Object.keys(table).filter((f) => existsSync(join(ROOT, f)));
  const bytes = known.reduce((s, f) => s + size(f), 0);
  const seconds = known.reduce((s, f) => s + table[f]!, 0);
  const perByte = bytes > 0 ? seconds / bytes : 1e-4;
  return new Map(files.map((f) => [f, table[f] ?? size(f) * perByte]));
}

/** the files dealt into n shards: heaviest first, each to the lightest shard so far */
function deal(files: string[], n: number): string[][] {
  const cost = costs(files);
  const shards = Array.from({ length: n }, () => ({ files: [] as string[], total: 0 }));
  for (const f of [...files].sort((a, b) => cost.get(b)! - cost.get(a)! || a.localeCompare(b))) {
    const lightest = shards.reduce((min, s) => (s.total < min.total ? s : min));
    lightest.files.push(f);
    lightest.total += cost.get(f)!;
  }
  return shards.map((s) => s.files.sort());
}

interface Outcome {
  passed: number;
  failed: number;
  skipped: number;
  code: number;
  /** seconds per test file, as MCPX_TEST_WEIGHTS=record measures them */
  seconds: Map<string, number>;
}

const children = new Set<ReturnType<typeof spawn>>();
const scratches = new Set<string>();

/**
 * A daemon a test started in the background (mcpx daemon start, or --remote on demand) and did not
 * stop outlives bun test: its pid file is in a sandbox of the shard's scratch directory. Each is
 * ended here and named, and counts as a failure: every spawned process must be ended by its test.
 */
function stopLeftDaemons(scratch: string): string[] {
  const left: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < 8) walk(p, depth + 1);
      else if (e.isFile() && e.name.endsWith(".pid")) {
        const pid = Number(readFileSync(p, "utf8").trim());
        let cmdline = "";
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        } catch {
          continue;
        }
        if (!cmdline.split("\0").includes("daemon")) continue;
        // SIGTERM first: the daemon then ends its servers and runtimes too
        process.kill(pid, "SIGTERM");
        for (let waited = 0; waited < 5000 && running(pid); waited += 50) Bun.sleepSync(50);
        if (running(pid)) process.kill(pid, "SIGKILL");
        left.push(`pid ${pid} (${p})`);
      }
    }
  };
  walk(scratch, 0);
  return left;
}

/** one bun test over `paths`, its output passed on a test file's block at a time behind `prefix` */
async function runShard(paths: string[], prefix: string): Promise<Outcome> {
  // the tests' sandboxes go here (test/e2e/harness.ts), and all of it goes once bun test has ended
  const scratch = mkdtempSync(join(tmpdir(), "mcpx-test-run-"));
  scratches.add(scratch);
  const proc = spawn([process.execPath, "test", "--timeout", "60000", ...paths], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, FORCE_COLOR: "0", MCPX_TEST_TMP: scratch },
  });
  children.add(proc);
  let stderrText = "";
  const seconds = new Map<string, number>();
  let current: { file: string; since: number } | undefined;
  const started = performance.now();
  const fileEnds = (now: number) => {
    if (current) seconds.set(current.file, (now - current.since) / 1000);
  };
  const header = (file: string) => {
    const now = performance.now();
    fileEnds(now);
    current = { file, since: current ? now : started };
  };
  await Promise.all([passOn(proc.stdout, prefix, process.stdout, false), passOn(proc.stderr, prefix, process.stderr, true, (s) => (stderrText += s), header)]);
  fileEnds(performance.now());
  const code = await proc.exited;
  children.delete(proc);
  const leftDaemons = stopLeftDaemons(scratch);
  if (leftDaemons.length) console.error(`${prefix}daemons the tests left running, now stopped (a failure): ${leftDaemons.join("; ")}`);
  rmSync(scratch, { recursive: true, force: true });
  scratches.delete(scratch);
  const count = (re: RegExp) => Number(re.exec(stderrText)?.[1] ?? 0);
  return {
    passed: count(/^\s*(\d+) pass$/m),
    failed: count(/^\s*(\d+) fail$/m) + count(/^\s*(\d+) errors?$/m) + leftDaemons.length,
    skipped: count(/^\s*(\d+) skip$/m),
    code,
    seconds,
  };
}

/**
 * copies a stream to `out` with `prefix` before each line; with `byFile` (bun test's stderr, where it
 * reports) lines are held until the next test file's header (its `test/…test.ts:` line) or the
 * stream's end, so one file's block stays together
 */
async function passOn(
  stream: ReadableStream<Uint8Array>,
  prefix: string,
  out: NodeJS.WriteStream,
  byFile: boolean,
  seen?: (s: string) => void,
  header?: (file: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let partial = "";
  let block: string[] = [];
  const flush = () => {
    if (block.length > 0) out.write(block.map((l) => `${prefix}${l}\n`).join(""));
    block = [];
  };
  for await (const chunk of stream) {
    const s = decoder.decode(chunk, { stream: true });
    seen?.(s);
    const lines = (partial + s).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      const file = /^(test\/\S+\.test\.ts):$/.exec(line)?.[1];
      if (file !== undefined) {
        flush();
        header?.(file);
      }
      block.push(line);
    }
    if (!byFile) flush();
  }
  const rest = partial + decoder.decode();
  seen?.(rest);
  if (rest) block.push(rest);
  flush();
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    for (const c of children) c.kill(sig);
    for (const d of scratches) rmSync(d, { recursive: true, force: true });
    process.exit(sig === "SIGINT" ? 130 : 143);
  });
}

/** test/weights.json with the files this run measured replaced, and files no longer there dropped */
function record(outcomes: Outcome[]): void {
  const path = join(import.meta.dir, "weights.json");
  const table = JSON.parse(readFileSync(path, "utf8")) as Record<string, number>;
  for (const o of outcomes) for (const [f, secs] of o.seconds) table[f] = Math.round(secs * 10) / 10;
  const kept = Object.keys(table)
    .filter((f) => existsSync(join(ROOT, f)))
    .sort();
  writeFileSync(path, `${JSON.stringify(Object.fromEntries(kept.map((f) => [f, table[f]])), null, 2)}\n`);
  console.error(`test/weights.json: ${kept.length} files`);
}

const weightsMode = process.env.MCPX_TEST_WEIGHTS;
if (weightsMode !== undefined && weightsMode !== "" && weightsMode !== "record")
  fail(`MCPX_TEST_WEIGHTS is ${JSON.stringify(weightsMode)}: use record (to rewrite test/weights.json from this run), or leave it unset`);
const recording = weightsMode === "record";
const which = process.argv.slice(2);
const paths = which.length === 0 ? ["test/unit", "test/e2e"] : which.map((w) => (w === "unit" || w === "e2e" ? `test/${w}` : w));
const files = selected(paths);
const n = shardCount(files.length);
const shards = n === 1 ? [paths] : deal(files, n);
const started = Date.now();
const outcomes = await Promise.all(shards.map((s, i) => runShard(s, n === 1 ? "" : `[${i + 1}/${n}] `)));
if (n > 1) console.error(`${n} shards in ${((Date.now() - started) / 1000).toFixed(1)} s`);
// a shard that ended badly with no failure counted (killed, or bun test itself failed) is one
for (const [i, o] of outcomes.entries()) {
  if (o.code !== 0 && o.failed === 0) {
    console.error(`shard ${i + 1} exited with ${o.code} and no failed test: counted as one failure`);
    o.failed = 1;
  }
}
if (recording) record(outcomes);
const sum = (k: "passed" | "failed" | "skipped") => outcomes.reduce((s, o) => s + o[k], 0);
const [passed, failed, skipped] = [sum("passed"), sum("failed"), sum("skipped")];
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(outcomes.some((o) => o.code !== 0) || failed > 0 || passed === 0 ? 1 : 0);
