// Hook stdin payloads of several MB: a `call`-point `run` hook gets the call's payload on
// stdin — with a 4 MB argument (call.before) or a 4 MB result (call.onSuccess) that is 4 MB — and a
// hook that never reads its stdin, or exits at once, must not wedge the call: the call goes through
// with its content intact, what the hook said (or its failure) is in its hook frame, and no hook
// process is left. Every hook's argv carries a unique marker that leftoverProcesses() looks for.

import { describe, expect, test } from "bun:test";
import { execStream, hookSandbox, onlyHookFrame, stdoutOf } from "./hooks-support.ts";
import { expectExit, leftoverProcesses, uniqueMarker } from "./support.ts";
import { IMPORT_PAYLOAD, MiB, RUN_TIMEOUT, TEST_TIMEOUT_MS, digestOf } from "./workloads-support.ts";

const sb = hookSandbox();
const SIZE = 4 * MiB;

interface Kind {
  label: string;
  /** a sh -c program; $0 is the marker */
  sh: string;
  timeout?: string;
  /** what the hook frame must say */
  frame: { advice?: string; failed?: RegExp };
}

const KINDS: Kind[] = [
  // a hook that does not care about the payload: it answers without reading a byte of stdin
  {
    label: "a hook that never reads stdin and answers at once",
    sh: `echo '{"advise":"answered without reading"}'`,
    frame: { advice: "answered without reading" },
  },
  { label: "a hook that exits at once, saying nothing", sh: "exit 0", frame: {} },
  { label: "a hook that never reads stdin and never answers", sh: "sleep 30", timeout: "1s", frame: { failed: /timed out/ } },
];

const PHASES = [
  {
    phase: "before",
    tool: "sha256",
    what: "argument",
    source: (seed: number) => `${IMPORT_PAYLOAD}\nconsole.log(await fake.sha256({ data: payload(${SIZE}, ${seed}) }));`,
  },
  {
    phase: "onSuccess",
    tool: "bytes",
    what: "result",
    source: (seed: number) => `${IMPORT_PAYLOAD}\nconst r = await fake.bytes({ size: ${SIZE}, seed: ${seed} });\nconsole.log(r.length + " " + sha256(r));`,
  },
] as const;

describe.concurrent("a call hook with a 4 MB payload on stdin", () => {
  KINDS.forEach((kind, k) => {
    PHASES.forEach(({ phase, tool, what, source }, p) => {
      test(
        `${kind.label}, at call.${phase} of a call with a 4 MB ${what}: the call goes through intact and no hook process is left`,
        async () => {
          const marker = uniqueMarker(`hook-stdin-${phase}`);
          const name = `big-${phase}-${k}`;
          const hook = { name, on: "call", phase, when: { tool }, run: ["sh", "-c", kind.sh, marker], ...(kind.timeout ? { timeout: kind.timeout } : {}) };
          const seed = 600 + k * 10 + p;
          const r = await execStream(sb, source(seed), { hooks: [hook], flags: ["--timeout", RUN_TIMEOUT] });
          expectExit(r, 0);
          expect(stdoutOf(r.frames)).toBe(`${digestOf(SIZE, seed)}\n`);
          const frame = onlyHookFrame(r.frames, name);
          if (kind.frame.failed) expect(frame.failed ?? "no failed in the hook frame").toMatch(kind.frame.failed);
          else expect(frame.failed ?? null).toBeNull();
          if (kind.frame.advice) expect(JSON.stringify(frame)).toContain(kind.frame.advice);
          expect(frame.changed).toBe(false);
          expect(await leftoverProcesses(marker)).toEqual([]);
        },
        TEST_TIMEOUT_MS,
      );
    });
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
