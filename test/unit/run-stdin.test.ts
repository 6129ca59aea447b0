// A run's stdin (lib/runtime/run-watch.ts writeRunStdin): its runtime may end before the host writes
// it, when the script never reads it; that EPIPE is not the run's failure, and any other error still is.

import { expect, test } from "bun:test";
import { writeRunStdin } from "../../lib/runtime/run-watch.ts";

const failing = (code: string) => Object.assign(new Error(`${code}: write failed`), { code });

test("a runtime gone before its stdin is written (EPIPE at the write or at the close) is not an error, and the pipe is still closed", () => {
  const ended: string[] = [];
  writeRunStdin(
    {
      write: () => {
        throw failing("EPIPE");
      },
      end: () => ended.push("end"),
    },
    "payload",
  );
  expect(ended).toEqual(["end"]);
  expect(() =>
    writeRunStdin(
      {
        write: () => 7,
        end: () => {
          throw failing("EPIPE");
        },
      },
      "payload",
    ),
  ).not.toThrow();
});

test("an EPIPE the sink reports later, from its promise, is not an error either", async () => {
  let rejected!: Promise<number>;
  writeRunStdin({ write: () => 7, end: () => (rejected = Promise.reject(failing("EPIPE"))) }, "payload");
  // writeRunStdin handled it (bun test fails a file on an unhandled rejection); it is still the sink's own rejection
  await expect(rejected).rejects.toThrow("EPIPE");
});

test("any other failure writing the stdin is still the run's error", () => {
  expect(() =>
    writeRunStdin(
      {
        write: () => {
          throw failing("EBADF");
        },
        end: () => 0,
      },
      "payload",
    ),
  ).toThrow("EBADF");
});
