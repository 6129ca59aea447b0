// `mcpx call` on a result that is not all text: server-everything's get-tiny-image answers a caption,
// a PNG and a second caption. The text is printed as text and the image as one line naming its MIME
// type and size, not the raw JSON with its base64; -o FILE writes the image; -o on a result with no
// image is an error, never a flag quietly ignored.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { everythingServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { everything: everythingServer() } });
const PNG = [0x89, 0x50, 0x4e, 0x47];

describe.concurrent("mcpx call on a text-plus-image result", () => {
  test("prints the captions and one line naming the image's MIME type and size, without its base64", async () => {
    const r = await mcpx(sb, ["call", "everything.get_tiny_image"]);
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^Here's the image you requested:\n\[image image\/png, \d+\.\d KiB; -o FILE writes it\]\nThe image above is the MCP logo\.\n$/);
    expect(r.stdout.length).toBeLessThan(200);
  });

  test("-o FILE writes the PNG and the line says where", async () => {
    const file = join(sb.dir, "logo.png");
    const r = await mcpx(sb, ["call", "everything.get_tiny_image", "-o", file]);
    expectExit(r, 0);
    expect(r.stdout).toContain(`written to ${file}]`);
    expect([...readFileSync(file).subarray(0, 4)]).toEqual(PNG);
  });

  test("--json still prints the raw result, and --out-file beside it still writes the file", async () => {
    const file = join(sb.dir, "raw.png");
    const r = await mcpx(sb, ["call", "everything.get_tiny_image", "--json", "--out-file", file]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).content.map((c: { type: string }) => c.type)).toEqual(["text", "image", "text"]);
    expect([...readFileSync(file).subarray(0, 4)]).toEqual(PNG);
  });

  test("-o on a result with no image is an error naming the flag and the tool, and writes nothing", async () => {
    const file = join(sb.dir, "none.png");
    const r = await mcpx(sb, ["call", "everything.echo", "message=hi", "-o", file]);
    expectExit(r, 2);
    expect(r.stderr).toContain(`-o ${file}: the result of everything.echo has no image, audio or blob resource to write`);
    expect(existsSync(file)).toBe(false);
  });
});

test("no server process is left after the calls", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
