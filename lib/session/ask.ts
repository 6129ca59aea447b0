// `ask` hooks ask the person at the terminal; where nobody can answer (no TTY), there is no asker
// and the gate treats the ask as a refusal. consola is loaded only when a question is asked: it costs
// more start-up time than the rest of a run's CLI together.

export function terminalAsker(): ((question: string) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (question) => {
    const { consola } = await import("consola");
    return (await consola.prompt(question, { type: "confirm", initial: false, cancel: "default" })) === true;
  };
}
