// `ask` hooks ask the person at the terminal; where nobody can answer (no TTY) the answer is
// undefined and the gate treats the ask as a refusal. Everything happens only when a question is
// asked: consola costs more start-up time than the rest of a run's CLI together, and even the TTY
// check does (node:tty, or touching process.stdin, which Bun builds a stream for), so a run without
// an `ask` pays for neither.

export function terminalAsker(): (question: string) => Promise<boolean | undefined> {
  return async (question) => {
    const { isatty } = await import("node:tty");
    if (!isatty(0) || !isatty(2)) return undefined;
    const { consola } = await import("consola");
    return (await consola.prompt(question, { type: "confirm", initial: false, cancel: "default" })) === true;
  };
}
