// The MCPX_HOOK_* variables: one table, only variables with a value are set.

import { describe, expect, test } from "bun:test";
import { HOOK_ENV, hookEnv } from "../../lib/hooks/hook-env.ts";

const hook = { name: "no-deletes" };

describe("hookEnv", () => {
  const table: Array<{
    name: string;
    point: string;
    phase: "before" | "onSuccess" | "observe";
    payload: Parameters<typeof hookEnv>[3];
    env: Record<string, string>;
  }> = [
    {
      name: "a call hook gets point, phase, name, run id, server and tool",
      point: "call",
      phase: "before",
      payload: { runId: "r1", call: { server: "fs", tool: "delete_file" } },
      env: {
        MCPX_HOOK_POINT: "call",
        MCPX_HOOK_PHASE: "before",
        MCPX_HOOK_NAME: "no-deletes",
        MCPX_HOOK_RUN_ID: "r1",
        MCPX_HOOK_SERVER: "fs",
        MCPX_HOOK_TOOL: "delete_file",
      },
    },
    {
      name: "a script hook gets the script path and no server or tool",
      point: "script",
      phase: "onSuccess",
      payload: { runId: "r2", script: { path: "/w/report.ts" } },
      env: { MCPX_HOOK_POINT: "script", MCPX_HOOK_PHASE: "onSuccess", MCPX_HOOK_NAME: "no-deletes", MCPX_HOOK_RUN_ID: "r2", MCPX_HOOK_SCRIPT: "/w/report.ts" },
    },
    {
      name: "a server.start hook gets the starting server's name",
      point: "server.start",
      phase: "before",
      payload: { runId: "r3", server: { name: "everything", kind: "stdio" } },
      env: { MCPX_HOOK_POINT: "server.start", MCPX_HOOK_PHASE: "before", MCPX_HOOK_NAME: "no-deletes", MCPX_HOOK_RUN_ID: "r3", MCPX_HOOK_SERVER: "everything" },
    },
    {
      name: "an observe hook gets the event kind as its point, and nothing unset appears",
      point: "call.finished",
      phase: "observe",
      payload: {},
      env: { MCPX_HOOK_POINT: "call.finished", MCPX_HOOK_PHASE: "observe", MCPX_HOOK_NAME: "no-deletes" },
    },
    {
      name: "an empty value is left unset rather than set empty",
      point: "call",
      phase: "before",
      payload: { runId: "", call: { server: "fs", tool: "" } },
      env: { MCPX_HOOK_POINT: "call", MCPX_HOOK_PHASE: "before", MCPX_HOOK_NAME: "no-deletes", MCPX_HOOK_SERVER: "fs" },
    },
  ];
  for (const row of table) test(row.name, () => expect(hookEnv(hook, row.point, row.phase, row.payload)).toEqual(row.env));
});

describe("the MCPX_HOOK_* table", () => {
  test("has the seven variables, each described, each named once", () => {
    expect(HOOK_ENV.map((v) => v.name)).toEqual([
      "MCPX_HOOK_POINT",
      "MCPX_HOOK_PHASE",
      "MCPX_HOOK_NAME",
      "MCPX_HOOK_RUN_ID",
      "MCPX_HOOK_SERVER",
      "MCPX_HOOK_TOOL",
      "MCPX_HOOK_SCRIPT",
    ]);
    for (const v of HOOK_ENV) expect(v.description.length).toBeGreaterThan(10);
  });

  test("hookEnv sets nothing the table does not declare", () => {
    const env = hookEnv(hook, "call", "before", { runId: "r", call: { server: "s", tool: "t" }, script: { path: "/p" } });
    const declared = new Set(HOOK_ENV.map((v) => v.name));
    for (const name of Object.keys(env)) expect(declared.has(name as never)).toBe(true);
  });
});
