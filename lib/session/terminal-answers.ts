// A server's elicitation asked of the person at the terminal (mcpx call, run, exec): form mode field
// by field with the schema's defaults pre-filled, URL mode as the URL to open and a confirmation.
// Only where stdin and stderr are TTYs; elsewhere nothing is declared and nobody answers. As with
// `ask` (ask.ts), consola and even the TTY check are loaded only when a server connects or asks.

import type { Answerer, ElicitAnswer, ElicitParams } from "../mcp/server-asks.ts";
import { formFields, readAnswer, shown, type Field } from "./elicit-form.ts";

type Prompt = (message: string, opts: Record<string, unknown>) => Promise<unknown>;

/** what consola's prompt gives back on Ctrl-C (`cancel: "symbol"`) */
const cancelled = (v: unknown) => typeof v === "symbol";

/**
 * One typed line, on readline rather than consola's text prompt: under Bun that prompt never sees
 * what is typed (it reads the line back through a tty WriteStream) and answers undefined. Ctrl-C or
 * the end of input cancels.
 */
async function askLine(question: string): Promise<string | symbol> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise((resolve) => {
    let answered = false;
    const end = (answer: string | symbol) => {
      answered = true;
      rl.close();
      resolve(answer);
    };
    rl.on("SIGINT", () => end(CANCEL));
    rl.on("close", () => answered || resolve(CANCEL));
    rl.question(`◆ ${question}`, end);
  });
}

const CANCEL = Symbol("cancel");

async function askField(prompt: Prompt, f: Field): Promise<{ value?: unknown } | "cancel"> {
  const message = `${f.label}${f.required ? "" : " (optional)"}`;
  if (f.kind === "boolean") {
    const v = await prompt(message, { type: "confirm", initial: f.default === true, cancel: "symbol" });
    return cancelled(v) ? "cancel" : { value: v === true };
  }
  if (f.kind === "select" || f.kind === "multiselect") {
    const initial = f.kind === "select" ? (f.default ?? f.options?.[0]?.value) : (f.default ?? []);
    const v = await prompt(message, { type: f.kind, options: f.options, initial, required: f.required, cancel: "symbol" });
    return cancelled(v) ? "cancel" : { value: v };
  }
  for (;;) {
    const typed = await askLine(`${message}${f.default === undefined ? "" : ` [${shown(String(f.default))}]`}: `);
    if (cancelled(typed)) return "cancel";
    const read = readAnswer(f, typeof typed === "string" ? typed : "");
    if (!read.error) return read;
    process.stderr.write(`  ${read.error}\n`);
  }
}

async function askForm(prompt: Prompt, server: string, params: ElicitParams): Promise<ElicitAnswer> {
  const how = await prompt(`${server} asks: ${shown(params.message)}`, {
    type: "select",
    options: [
      { value: "accept", label: "answer" },
      { value: "decline", label: "decline" },
      { value: "cancel", label: "cancel" },
    ],
    initial: "accept",
    cancel: "symbol",
  });
  if (cancelled(how) || how === "cancel") return { action: "cancel" };
  if (how === "decline") return { action: "decline" };
  const content: Record<string, unknown> = {};
  for (const f of formFields(params.requestedSchema)) {
    const got = await askField(prompt, f);
    if (got === "cancel") return { action: "cancel" };
    if (got.value !== undefined) content[f.key] = got.value;
  }
  return { action: "accept", content };
}

async function askUrl(prompt: Prompt, server: string, params: ElicitParams, env: Record<string, string | undefined>): Promise<ElicitAnswer> {
  process.stderr.write(`\n${server} asks you to open this URL: ${shown(params.message)}\n  ${shown(params.url ?? "")}\n\n`);
  for (;;) {
    const how = await prompt(`Done with ${shown(params.url ?? "")}?`, {
      type: "select",
      options: [
        { value: "accept", label: "done: I opened it and finished there" },
        { value: "open", label: "open it in the browser" },
        { value: "decline", label: "decline" },
        { value: "cancel", label: "cancel" },
      ],
      initial: "accept",
      cancel: "symbol",
    });
    if (cancelled(how) || how === "cancel") return { action: "cancel" };
    if (how !== "open") return { action: how === "accept" ? "accept" : "decline" };
    const { openBrowser } = await import("../mcp/oauth/browser.ts");
    const opened = openBrowser(params.url!, env);
    process.stderr.write(opened ? `  opened with ${opened.program}\n` : "  no browser to open it with here (set BROWSER): open it yourself\n");
  }
}

/** the person at the terminal, where stdin and stderr are TTYs; `env` is where the browser is found (BROWSER) */
export function terminalAnswerer(env: Record<string, string | undefined>): Answerer {
  let tty: Promise<boolean> | undefined;
  const onTerminal = () => (tty ??= import("node:tty").then(({ isatty }) => isatty(0) && isatty(2)));
  // one question at a time: two servers asking at once would draw over each other
  let turn: Promise<unknown> = Promise.resolve();
  return {
    nobody: "stdin and stderr are not a terminal, so nobody can answer: run the command on a terminal to answer it",
    async offers() {
      const yes = await onTerminal();
      return { form: yes, url: yes, sampling: false };
    },
    elicit(server, params) {
      const answer = turn.then(async (): Promise<ElicitAnswer> => {
        if (!(await onTerminal())) return { action: "decline" };
        const { consola } = await import("consola");
        const prompt: Prompt = (message, opts) => consola.prompt(message, opts as never);
        return params.mode === "url" ? askUrl(prompt, server, params, env) : askForm(prompt, server, params);
      });
      turn = answer.catch(() => {});
      return answer;
    },
  };
}
