// The pure half of the doc test (docs-commands.test.ts): fenced blocks out of Markdown, the shell
// command lines out of a shell block, and what a block's marker and first-line path comment say.
// No I/O here; test/unit/doc-blocks.test.ts checks it directly.

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  /** the info string's first word, lower-cased; "" for an unlabeled block */
  lang: string;
  /** the word of a `<!-- doc-test: WORD -->` comment on the line right above the fence */
  marker?: string;
  body: string;
}

export interface DocCommand {
  /** 1-based line in the Markdown file */
  line: number;
  /** the command as a shell would run it: continuation lines joined, a trailing `# comment` removed */
  text: string;
}

export const SHELL_LANGS = ["sh", "bash", "console", "shell"];
export const JSON_LANGS = ["json", "jsonc"];
/** a container recipe: checked against the release binaries (docs-commands.test.ts), not built: no Docker engine here */
export const DOCKER_LANGS = ["dockerfile"];
/** a deployment manifest: checked by test/unit/deploy-manifests.test.ts (the text of a file under docs/deploy/), not run here */
const YAML_LANGS = ["yaml"];
/** what a program prints, shown as an example: prose, never run (a ```text block may hold lines that start with `mcpx`) */
const TEXT_LANGS = ["text"];

/**
 * What a marker may say (the convention is documented at the top of docs-commands.test.ts):
 * network: its URLs stand for a remote server, served by a local one in the test;
 * output: the block shows an answer or a shape, not a command or a config to run;
 * client-config: the block is an MCP client's config (an agent host's), started the way a host would;
 * oauth: its URLs stand for an OAuth-protected server, served by the local OAuth fixture, and a fake
 *   browser logs in when `mcpx auth` asks.
 */
const MARKERS = ["network", "output", "client-config", "oauth"] as const;

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*doc-test:\s*([\w-]+)\s*-->\s*$/;

/** every fenced block of a Markdown text, in order */
export function fencedBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split("\n");
  const out: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !closes(lines[j]!, fence); j++) body.push(lines[j]!);
    const marker = i > 0 ? MARKER.exec(lines[i - 1]!)?.[1] : undefined;
    out.push({ file, line: i + 1, lang: open[3]!.toLowerCase(), marker, body: body.join("\n") });
    i = j;
  }
  return out;
}

/** a closing fence: only the opening fence's character, at least as many times */
function closes(line: string, fence: string): boolean {
  const t = line.trim();
  return t.length >= fence.length && t === fence[0]!.repeat(t.length);
}

/** the commands of a shell block: every line (sh, bash) or every `$ ` line (console) */
export function shellCommands(block: DocBlock): DocCommand[] {
  const out: DocCommand[] = [];
  const lines = block.body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const first = block.line + 1 + i;
    let text = lines[i]!;
    if (block.lang === "console") {
      if (!text.startsWith("$ ")) continue; // output of the command above
      text = text.slice(2);
    }
    while (text.endsWith("\\") && i + 1 < lines.length) text = text.slice(0, -1).trimEnd() + " " + lines[++i]!.trim();
    text = stripComment(text).trim();
    if (text !== "") out.push({ line: first, text });
  }
  return out;
}

/** a line without its shell comment: a `#` that starts a word outside quotes, and all after it */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "\\") i++;
    else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line;
}

/** the program a command runs: its first word */
export function program(command: DocCommand): string {
  return command.text.split(/\s+/)[0]!;
}

/**
 * Where a JSON example lives, from a first line like `// plugins/guard/mcpx-plugin.json` or
 * `// .mcpx.json (found walking up …), or ~/.config/mcpx/config.json`: its first path.
 * Without one, the example is a project config, `.mcpx.json`.
 */
export function examplePath(block: DocBlock): string {
  const m = /^\s*\/\/\s*([\w./~-]+\.json)\b/.exec(block.body.split("\n")[0] ?? "");
  return m ? m[1]! : ".mcpx.json";
}

/** a command line that a reader would type, in a block that does not say it is shell */
const LOOKS_LIKE_COMMAND = /^\s*(?:\$\s+)?(?:mcpx|make|curl|npx|npm|bun|deno|node)(?:\s|$)/;

/**
 * Why the test could not treat this block as the docs mean it, or undefined: an unknown language or
 * marker, an unlabeled block holding commands or JSON (label it, so it is run), a marker on a block
 * it does not apply to.
 */
export function blockProblem(block: DocBlock): string | undefined {
  const where = `${block.file}:${block.line}`;
  if (block.marker !== undefined && !(MARKERS as readonly string[]).includes(block.marker)) {
    return `${where}: unknown doc-test marker "${block.marker}": use one of ${MARKERS.join(", ")}`;
  }
  if (block.lang === "") {
    const cmd = block.body.split("\n").find((l) => LOOKS_LIKE_COMMAND.test(l));
    if (cmd !== undefined) return `${where}: an unlabeled block holds a command (${cmd.trim()}): label it \`\`\`sh so the doc test runs it`;
    if (block.body.trimStart().startsWith("{")) return `${where}: an unlabeled block holds JSON: label it \`\`\`json or \`\`\`jsonc so the doc test loads it`;
    if (block.marker !== undefined) return `${where}: a doc-test marker on an unlabeled block does nothing: label the block`;
    return undefined;
  }
  if (SHELL_LANGS.includes(block.lang)) {
    if (block.marker === "output" || block.marker === "client-config")
      return `${where}: marker "${block.marker}" is for JSON blocks; a shell block's commands are all run`;
    return undefined;
  }
  if ([...JSON_LANGS, ...DOCKER_LANGS, ...TEXT_LANGS, ...YAML_LANGS].includes(block.lang)) return undefined;
  return (
    `${where}: a \`\`\`${block.lang} block: the doc test ` +
    `knows ${[...SHELL_LANGS, ...JSON_LANGS, ...DOCKER_LANGS, ...TEXT_LANGS, ...YAML_LANGS].join(", ")} and unlabeled text`
  );
}
