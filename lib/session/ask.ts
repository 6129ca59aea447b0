// `ask` hooks ask the person at the terminal; where nobody can answer (no TTY), there is no asker
// and the gate treats the ask as a refusal. consola is loaded only when a question is asked: it costs
// more start-up time than the rest of a run's CLI together. The TTY check uses isatty, not
// process.stdin.isTTY: touching process.stdin makes Bun build the stream (~9 ms of start-up).

import { isatty } from "node:tty";

export function terminalAsker(): ((question: string) => Promise<boolean>) | undefined {
  if (!isatty(0) || !isatty(2)) return undefined;
  return async (question) => {
    const { consola } = await import("consola");
    return (await consola.prompt(question, { type: "confirm", initial: false, cancel: "default" })) === true;
  };
}
