// The daemon's idle reaper never stops a server a run is waiting for: a server whose start takes
// longer than daemon.idleTimeout (a first `npx` run) is in use while it starts and lists its tools.

import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { recordedStarts } from "../../fixtures/servers/record.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { execEnvelope, startDaemon, stopDaemons } from "./daemon-support.ts";
import { writeConfig } from "./support.ts";

afterAll(stopDaemons);

describe("the idle reaper and a slow start", () => {
  test("a server that takes 3 s to start under a 1 s idle timeout is started once and answers the call that started it", async () => {
    const sb = sandbox();
    const record = join(sb.dir, "starts.jsonl");
    writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_START_DELAY: "3000", FAKE_MCP_RECORD: record }) } });
    const daemon = await startDaemon(sb, ["--daemon-idle-timeout", "1s"]);
    const envelope = await execEnvelope(daemon, { source: 'export default async () => await fake.echo({ message: "waited" })' });
    expect(envelope.error).toBeNull();
    expect(envelope.result).toBe("waited");
    // reaped while starting, it was started a second time by the waiting call (and the call took twice as long)
    expect(recordedStarts(record)).toHaveLength(1);
  });
});
