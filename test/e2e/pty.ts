// A command on a pseudo-terminal (util-linux `script`), answered step by step as a person would: each
// step waits until the terminal shows its text (after the previous step's), then types its keys.
// Keys typed before a prompt is drawn could reach the prompt before it, so nothing is typed ahead.

/** what the terminal shows, then what is typed: "\r" is Enter, "\x1b[B" the down arrow */
export type Step = [shows: string, keys: string];

/** the escape sequences a prompt draws with, taken out so a test reads the text */
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\x1b[78]/g, "");

/** runs argv (already shell-quoted words) in dir on a pseudo-terminal; resolves with what it showed and its exit code */
export async function onTerminal(
  dir: string,
  env: Record<string, string>,
  argv: string[],
  steps: Step[],
): Promise<{ shown: string; code: number; unmet: string | undefined }> {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  // a real width, or a prompt wraps after every character
  const proc = Bun.spawn(["script", "-qec", `stty cols 200 rows 50; ${quoted}`, "/dev/null"], {
    cwd: dir,
    env: { ...env, TERM: "xterm" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const decoder = new TextDecoder();
  let shown = "";
  let from = 0;
  let next = 0;
  for await (const chunk of proc.stdout) {
    shown += decoder.decode(chunk, { stream: true });
    const text = plain(shown);
    while (next < steps.length) {
      const at = text.indexOf(steps[next]![0], from);
      if (at < 0) break;
      from = at + steps[next]![0].length;
      proc.stdin.write(steps[next]![1]);
      await proc.stdin.flush();
      next++;
    }
  }
  const code = await proc.exited;
  return { shown: plain(shown), code, unmet: steps[next]?.[0] };
}
