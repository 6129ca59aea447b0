// @modelcontextprotocol/server-filesystem (node_modules/.bin/mcp-server-filesystem) used the way a
// user would: a 4 MB file read through a script comes back byte for byte, is written back
// through the server and re-read, and the copy on disk equals the original; a binary file read with
// read_media_file decodes to the same bytes. Files are generated in the sandbox, never committed.

import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../../fixtures/servers/payload.ts";
import { ROOT, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { KILL_AFTER_MS, MiB, RUN_TIMEOUT, TEST_TIMEOUT_MS } from "./workloads-support.ts";

const sb = sandbox();
const FILES = join(sb.dir, "files");
writeConfig(sb, ".mcpx.json", { mcpServers: { fs: { command: join(ROOT, "node_modules/.bin/mcp-server-filesystem"), args: [FILES] } } });

/** n random bytes (getRandomValues gives at most 64 KiB per call) */
function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

// 3 MiB of random bytes as base64 is a 4 MiB text file with no repetition a lost chunk could hide in
const TEXT = sb.write("files/big.txt", Buffer.from(randomBytes(3 * MiB)).toString("base64"));
const BINARY = join(FILES, "blob.bin");
writeFileSync(BINARY, randomBytes(1 * MiB));
const run = (source: string) => mcpx(sb, ["exec", "--timeout", RUN_TIMEOUT, source], { killAfterMs: KILL_AFTER_MS });

describe.concurrent("server-filesystem", () => {
  test(
    "a 4 MB text file read through a script comes back byte for byte, and written back through the server it equals the original on disk",
    async () => {
      const copy = join(FILES, "copy.txt");
      const r = await run(`import { createHash } from "node:crypto";
const hash = (s: string) => createHash("sha256").update(s).digest("hex");
const read = async (path: string) => (await fs.read_text_file({ path })).content;
const text = await read(${JSON.stringify(TEXT)});
console.log("read", text.length, hash(text));
await fs.write_file({ path: ${JSON.stringify(copy)}, content: text });
const again = await read(${JSON.stringify(copy)});
console.log("re-read", again.length, hash(again), again === text);`);
      expectExit(r, 0);
      const original = readFileSync(TEXT, "utf8");
      const want = `${original.length} ${sha256(original)}`;
      expect(r.stdout).toBe(`read ${want}\nre-read ${want} true\n`);
      expect(sha256(readFileSync(copy))).toBe(sha256(readFileSync(TEXT)));
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a 1 MB binary file read with read_media_file decodes to the same bytes",
    async () => {
      const r = await run(`import { createHash } from "node:crypto";
const r = await fs.read_media_file({ path: ${JSON.stringify(BINARY)} });
const block = r.content[0];
const data = block.data ?? block.resource?.blob;
const bytes = Buffer.from(data, "base64");
console.log(bytes.length, createHash("sha256").update(bytes).digest("hex"));`);
      expectExit(r, 0);
      expect(r.stdout).toBe(`${MiB} ${sha256(readFileSync(BINARY))}\n`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "list_directory and get_file_info see the files the test wrote, with their sizes",
    async () => {
      const r = await run(`console.log(JSON.stringify(await fs.list_directory({ path: ${JSON.stringify(FILES)} })));
console.log(JSON.stringify(await fs.get_file_info({ path: ${JSON.stringify(BINARY)} })));`);
      expectExit(r, 0);
      const [listing, info] = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.stringify(JSON.parse(l)));
      expect(listing).toContain("[FILE] big.txt");
      expect(listing).toContain("[FILE] blob.bin");
      expect(info).toContain(`size: ${MiB}`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a path outside the allowed directory is refused by the server, and the script sees the error",
    async () => {
      const r = await run(
        `try { await fs.read_text_file({ path: "/etc/hostname" }); console.log("read it"); } catch (e) { console.log("refused:", (e as Error).message); }`,
      );
      expectExit(r, 0);
      expect(r.stdout).toStartWith("refused:");
      expect(r.stdout).toMatch(/outside allowed directories|Access denied/i);
    },
    TEST_TIMEOUT_MS,
  );
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
