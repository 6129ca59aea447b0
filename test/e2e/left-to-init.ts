// Runs one mcpx command as the child of a subreaper, so that whatever mcpx leaves behind when it exits
// (a process it neither ended nor reaped, zombies included) is reparented here instead of to init, where
// a container's init may keep it forever. Prints {code, left: [{pid, state, cmd}]} as JSON, then ends
// and reaps what was left. Run by processes-left.test.ts: bun left-to-init.ts OUT_DIR MCPX ARGS…

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readSubtree } from "../../lib/process/proc-table.ts";
import { loadLibc } from "../../lib/process/libc.ts";
import { becomeSubreaper } from "../../lib/process/subreaper.ts";

const [outDir, mcpx, ...args] = process.argv.slice(2);
if (!becomeSubreaper()) {
  console.log(JSON.stringify({ skipped: "this system has no child subreaper (Linux only)" }));
  process.exit(0);
}
// LEFT_SIGNAL=SIGNAL:TEXT: mcpx gets SIGNAL once TEXT is on its stdout (a Ctrl-C mid-run, say), or on
// its stderr with LEFT_SIGNAL_ON=stderr (a daemon's "listening" line)
const [sig, text] = (process.env.LEFT_SIGNAL ?? "").split(/:(.*)/s);
const watched = process.env.LEFT_SIGNAL_ON === "stderr" ? "stderr" : "stdout";
// files, not pipes (but the stream watched): a process left holding mcpx's output must not hold this up
const p = Bun.spawn([mcpx!, ...args], {
  stdin: "ignore",
  stdout: text && watched === "stdout" ? "pipe" : Bun.file(join(outDir!, "stdout")),
  stderr: text && watched === "stderr" ? "pipe" : Bun.file(join(outDir!, "stderr")),
});
if (text) {
  const reader = (p[watched] as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  if (seen.includes(text)) p.kill(sig as NodeJS.Signals);
  reader.releaseLock();
}
const code = await p.exited;
// mcpx has exited and Bun has reaped it: the kernel reparented what it left to this process as it exited
const left = [...readSubtree(process.pid).values()].map((e) => {
  let cmd = "";
  try {
    cmd = readFileSync(`/proc/${e.pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    // gone
  }
  return { pid: e.pid, state: e.state, cmd };
});
for (const e of left) {
  try {
    process.kill(e.pid, "SIGKILL");
  } catch {
    // gone
  }
}
console.log(JSON.stringify({ code, left }));
// reaped after the report, each by its pid, waiting for it to end (a zombie's only way out)
for (const e of left) loadLibc()?.waitpid(e.pid, null, 0);
