// The /proc readers behind lineages (lib/process/proc-table.ts): the stat line parsed from the last
// ")" (a command name may hold spaces and parentheses), descendants found through any depth and
// only through parent links, and the environment marker matched as a whole variable, never as the
// tail of another variable's value.

import { describe, expect, test } from "bun:test";
import { descendantsIn, hasEnvEntry, parseStat, readEntry, readSubtree, readTable, type ProcEntry } from "../../lib/process/proc-table.ts";

describe("parseStat", () => {
  test("reads state, ppid and start time after a command name that holds spaces and parentheses", () => {
    const rest = ["S", "42", "7", "7", "0", "-1", "4194560", ...Array(12).fill("0"), "123456", "0"].join(" ");
    expect(parseStat(9, `9 (we(ird) name)) ${rest}`)).toEqual({ pid: 9, ppid: 42, state: "S", start: 123456 });
  });

  test("a line without a command name is not an entry", () => {
    expect(parseStat(9, "garbage")).toBeUndefined();
  });

  test("this process's own entry names its parent", () => {
    expect(readEntry(process.pid)?.ppid).toBe(process.ppid);
  });
});

describe("descendantsIn", () => {
  const table = new Map<number, ProcEntry>(
    [
      [10, 1],
      [11, 10],
      [12, 11],
      [13, 12],
      [20, 1],
      [21, 20],
    ].map(([pid, ppid]) => [pid!, { pid: pid!, ppid: ppid!, state: "S", start: 0 }]),
  );

  test("follows parent links to any depth, without the roots themselves", () => {
    expect(descendantsIn(table, [10]).sort()).toEqual([11, 12, 13]);
  });

  test("never includes a process of another tree", () => {
    expect(descendantsIn(table, [11, 20]).sort()).toEqual([12, 13, 21]);
  });
});

describe("hasEnvEntry", () => {
  test("matches a whole variable of a process's environment, never a prefix of one or the tail of another's value", async () => {
    // sh tells when it runs, so its environment is its own and not the forking test's any more, and
    // then waits on its stdin (not exec: while a process execs, its environment reads as empty)
    const child = Bun.spawn(["sh", "-c", "echo started; read x"], {
      env: { PATH: process.env.PATH!, MCPX_LINEAGE: "1:run-a", DECOY: "MCPX_LINEAGE=1:run-b" },
      stdio: ["pipe", "pipe", "ignore"],
    });
    try {
      await child.stdout.getReader().read();
      expect(hasEnvEntry(child.pid, "MCPX_LINEAGE=1:run-a")).toBe(true);
      expect(hasEnvEntry(child.pid, "MCPX_LINEAGE=1:run")).toBe(false);
      expect(hasEnvEntry(child.pid, "MCPX_LINEAGE=1:run-b")).toBe(false);
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }
  });
});

describe("readSubtree", () => {
  test("finds the same descendants as a read of the whole table, at every depth", async () => {
    // sh → sh → sleep: two levels below the child this test starts
    const child = Bun.spawn(["sh", "-c", "sh -c 'sleep 30 & echo started; wait' & wait"], { stdout: "pipe" });
    try {
      const reader = child.stdout.getReader();
      await reader.read(); // "started": the grandchild and its sleep exist
      const below = readSubtree(child.pid);
      expect(below).toBeDefined();
      const expected = descendantsIn(readTable(), [child.pid]).sort();
      expect(expected.length).toBe(2);
      expect([...below!.keys()].sort()).toEqual(expected);
      expect([...below!.values()].every((e) => e.start === readEntry(e.pid)?.start)).toBe(true);
      expect(readSubtree(process.pid)!.has(child.pid)).toBe(true);
    } finally {
      for (const pid of descendantsIn(readTable(), [child.pid])) process.kill(pid, "SIGKILL");
      child.kill("SIGKILL");
      await child.exited;
    }
  });
});
