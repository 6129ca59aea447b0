// settleOutcome: the one onSuccess/onError loop the script point and the call point share. An
// onError hook asking for a retry gets at most hooks.retryBudget more attempts; an error the
// operation calls final (an interrupt) gets none; an apply recovers with the operation's own shape.

import { describe, expect, test } from "bun:test";
import { settleOutcome } from "../../lib/hooks/recovery.ts";
import { parseHooks } from "../../lib/hooks/schema.ts";
import type { Gate, HookFrameBody } from "../../lib/hooks/types.ts";

/** a gate with one call.onError hook that prints `output`, and the given retry budget */
function gateAnswering(output: unknown, retryBudget: number): Gate {
  const hooks = parseHooks(
    [
      {
        value: { name: "h", on: "call", phase: "onError", run: ["sh", "-c", `cat >/dev/null; printf '%s' '${JSON.stringify(output)}'`], effect: "run" },
        origin: "test hooks[0]",
        baseDir: process.cwd(),
      },
    ],
    { PATH: process.env.PATH },
  );
  return {
    hooks,
    policy: { autonomy: "run", max: "run", retryBudget, defaultTimeoutMs: 5000, mcpTimeoutMs: 1000, hookServers: { all: false, names: [] } },
    hookFailed: () => {},
    host: { startServer: async () => {}, env: process.env, cwd: process.cwd(), warn: () => {} },
    hookTools: { call: async () => [] },
  } as unknown as Gate;
}

const error = { name: "ToolError", message: "boom", code: "UPSTREAM_ERROR" };
const rules = { refused: () => ({ ...error, message: "refused" }), recovered: (v: unknown) => ({ wrapped: v }) };

describe("settleOutcome", () => {
  test("a hook that always asks for a retry gets hooks.retryBudget more attempts, then the last error stands", async () => {
    let attempts = 0;
    const frames: HookFrameBody[] = [];
    const payload = { call: { server: "s", tool: "t", arguments: {} } };
    const settled = await settleOutcome(
      gateAnswering({ run: "retry" }, 2),
      "call",
      payload,
      (f) => frames.push(f),
      async () => {
        attempts++;
        return { ok: false, error };
      },
      rules,
    );
    expect(attempts).toBe(3);
    expect(settled).toEqual({ ok: false, error, refused: false });
    expect(frames.map((f) => f.retry ?? false)).toEqual([true, true, false]);
  });

  test("an error the operation calls final is never retried, whatever the hook asks", async () => {
    let attempts = 0;
    const payload = { call: { server: "s", tool: "t", arguments: {} } };
    await settleOutcome(
      gateAnswering({ run: "retry" }, 2),
      "call",
      payload,
      () => {},
      async () => {
        attempts++;
        return { ok: false, error };
      },
      { ...rules, final: () => true },
    );
    expect(attempts).toBe(1);
  });

  test("an apply at onError recovers with the value in the operation's own shape", async () => {
    const payload = { call: { server: "s", tool: "t", arguments: {} } };
    const settled = await settleOutcome(
      gateAnswering({ apply: 42 }, 0),
      "call",
      payload,
      () => {},
      async () => ({ ok: false, error }),
      rules,
    );
    expect(settled).toEqual({ ok: true, value: { wrapped: 42 }, recovered: true });
  });

  test("an attempt that cannot start stops the loop with undefined", async () => {
    const payload = { call: { server: "s", tool: "t", arguments: {} } };
    expect(
      await settleOutcome(
        gateAnswering({ run: "retry" }, 2),
        "call",
        payload,
        () => {},
        async () => undefined,
        rules,
      ),
    ).toBeUndefined();
  });
});
