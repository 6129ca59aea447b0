// `ask` on a terminal: the person at the TTY answers (consola's prompt). Elsewhere an ask is a
// refusal (hooks-dial-*.test.ts). A pseudo-terminal comes from util-linux's `script`.

import { describe, expect, test } from "bun:test";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer() },
  hooks: [{ name: "confirm", on: "call", phase: "before", run: ["sh", "-c", `echo '{"ask": "really echo?"}'`], effect: "ask" }],
});

/** runs a snippet under a pseudo-terminal, answers the first prompt, returns what the terminal showed */
async function onTerminal(snippet: string, answer: string): Promise<string> {
  // a real width, or the prompt wraps after every character
  const cmd = `stty cols 160 rows 40; ${MCPX} exec '${snippet.replace(/'/g, `'\\''`)}'`;
  const proc = Bun.spawn(["script", "-qec", cmd, "/dev/null"], {
    cwd: sb.dir,
    env: { ...sb.env, TERM: "xterm" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const decoder = new TextDecoder();
  let shown = "";
  let answered = false;
  for await (const chunk of proc.stdout) {
    shown += decoder.decode(chunk, { stream: true });
    if (!answered && shown.includes("really echo?")) {
      answered = true;
      proc.stdin.write(answer);
      await proc.stdin.flush();
    }
  }
  await proc.exited;
  return shown.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
}

describe("ask on a terminal", () => {
  test("yes lets the call through", async () => {
    const shown = await onTerminal('console.log("got", await fake.echo({ message: "through" }))', "y\r");
    expect(shown).toContain("really echo?");
    expect(shown).toContain("got through");
  });

  test("no refuses it, naming the hook", async () => {
    const shown = await onTerminal('try { await fake.echo({ message: "x" }) } catch (e) { console.log("refused:", (e as Error).message) }', "n\r");
    expect(shown).toContain("refused:");
    expect(shown).toContain("confirm");
  });
});
