// @modelcontextprotocol/server-everything (node_modules/.bin/mcp-server-everything) used as its tools
// are documented: `mcpx ls` lists them, and a script uses echo, get_sum, structured content,
// annotated and image content, resource links, gzip_file_as_resource on a 1 MB payload (decompressed
// and compared in the script) and a long-running operation with progress.

import { describe, expect, test } from "bun:test";
import { everythingServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { IMPORT_PAYLOAD, KILL_AFTER_MS, MiB, RUN_TIMEOUT, TEST_TIMEOUT_MS } from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { everything: everythingServer() } });
const run = (source: string) => mcpx(sb, ["exec", "--timeout", RUN_TIMEOUT, source], { killAfterMs: KILL_AFTER_MS });

describe.concurrent("server-everything", () => {
  test(
    "mcpx ls everything lists its documented tools",
    async () => {
      const r = await mcpx(sb, ["ls", "everything"], { killAfterMs: KILL_AFTER_MS });
      expectExit(r, 0);
      const tools = r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[1]!.replace(/\(.*$/, ""));
      for (const t of [
        "echo",
        "get_sum",
        "get_structured_content",
        "get_annotated_message",
        "get_tiny_image",
        "get_resource_links",
        "gzip_file_as_resource",
        "trigger_long_running_operation",
      ]) {
        expect(tools).toContain(`everything.${t}`);
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "echo, get_sum and get_structured_content answer as documented",
    async () => {
      const r = await run(`console.log(await everything.echo({ message: "hi there" }));
console.log(await everything.get_sum({ a: 19, b: 23 }));
const weather = await everything.get_structured_content({ location: "Chicago" });
console.log(Object.keys(weather).sort().join(","), typeof weather.temperature, typeof weather.humidity);`);
      expectExit(r, 0);
      expect(r.stdout).toBe("Echo: hi there\nThe sum of 19 and 23 is 42.\nconditions,humidity,temperature number number\n");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "annotated, image and resource-link content reach the script as content blocks",
    async () => {
      const r = await run(`const annotated = await everything.get_annotated_message({ messageType: "error", includeImage: true });
console.log(annotated.content.map((c: { type: string }) => c.type).join(","), annotated.content[0].annotations.priority);
const image = await everything.get_tiny_image({});
const png = Buffer.from(image.content.find((c: { type: string }) => c.type === "image").data, "base64");
console.log(png.subarray(1, 4).toString(), png.length > 100);
const links = await everything.get_resource_links({ count: 4 });
console.log(links.content.filter((c: { type: string }) => c.type === "resource_link").length);`);
      expectExit(r, 0);
      expect(r.stdout).toBe("text,image 1\nPNG true\n4\n");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "gzip_file_as_resource compresses a 1 MB data URI and the script decompresses the same bytes",
    async () => {
      const r = await run(
        `${IMPORT_PAYLOAD}
import { gunzipSync } from "node:zlib";
const text = payload(${MiB}, 7);
const r = await everything.gzip_file_as_resource({ name: "big.txt.gz", data: ` +
          `"data:text/plain;base64," + Buffer.from(text).toString("base64"), outputType: "resource" });
const back = gunzipSync(Buffer.from(r.content[0].resource.blob, "base64")).toString();
console.log(r.content[0].resource.mimeType, back.length, sha256(back) === sha256(text));`,
      );
      expectExit(r, 0);
      expect(r.stdout).toBe(`application/gzip ${MiB} true\n`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a long-running operation with progress finishes and answers",
    async () => {
      const r = await run(`console.log(await everything.trigger_long_running_operation({ duration: 1, steps: 4 }));`);
      expectExit(r, 0);
      expect(r.stdout).toBe("Long running operation completed. Duration: 1 seconds, Steps: 4.\n");
    },
    TEST_TIMEOUT_MS,
  );
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
