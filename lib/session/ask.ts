// `ask` hooks ask the person at the terminal; where nobody can answer (no TTY), there is no asker
// and the gate treats the ask as a refusal.

import { consola } from "consola";

export function terminalAsker(): ((question: string) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (question) => (await consola.prompt(question, { type: "confirm", initial: false, cancel: "default" })) === true;
}
