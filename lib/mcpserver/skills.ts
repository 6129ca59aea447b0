// Skills: .mcpx/skills/NAME.ts files that `mcpx serve` offers as tools named skill_NAME. A skill
// file starts with two lines mcpx reads without running anything (`export const description = "…";`
// and `export const input = {…};`, each a JSON literal on its one line) and has a default async
// function, which a call runs as agent code (sandboxed by serve's default) with the tool's arguments.
// A skill is repository content: it is offered only while its file is trusted (mcpx trust PATH),
// as a project's hooks and script phases are; mcpx_save_skill trusts what it writes itself, since the
// agent that saved it could have run the same code through mcpx_exec.

import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ancestors } from "../paths/ancestors.ts";
import type { Session } from "../session/session.ts";
import { contentHash } from "../trust/trust-store.ts";
import { isTrusted, trustKey } from "../trust/project-trust.ts";
import { writeRecord } from "../trust/trust-store.ts";
import { isPlainObject } from "../util/json-type.ts";

const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,47}$/;
const SKILL_NAME_FORM = "1 to 48 of a-z, 0-9, _ and -, starting with a letter or digit";
/** a skill's tool name: the prefix keeps skills clear of mcpx's own tools and the `_` hook tools */
export const SKILL_PREFIX = "skill_";

export interface Skill {
  name: string;
  path: string;
  description: string;
  input: Record<string, unknown>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** the skills directory of `cwd`: the nearest .mcpx/skills walking up, else the one mcpx_save_skill makes here */
function skillsDir(cwd: string): string {
  for (const dir of ancestors(cwd)) {
    const candidate = join(dir, ".mcpx", "skills");
    if (existsSync(candidate)) return candidate;
  }
  return join(cwd, ".mcpx", "skills");
}

/** the two header lines of a skill file, as mcpx_save_skill writes them and mcpx reads them back */
function header(description: string, input: Record<string, unknown>): string {
  return `export const description = ${JSON.stringify(description)};\nexport const input = ${JSON.stringify(input)};\n`;
}

/** a skill file's description and input, read from its text (never run); a string says what is wrong */
function parseSkill(name: string, path: string, text: string): Skill | string {
  const line = (key: string): unknown => {
    const m = new RegExp(`^export const ${key} = (.*?);?\\s*$`, "m").exec(text);
    if (!m) return undefined;
    try {
      return JSON.parse(m[1]!);
    } catch {
      return undefined;
    }
  };
  const description = line("description");
  const input = line("input");
  const form = 'a line `export const description = "…";` and a line `export const input = {"type": "object", …};`, each value JSON';
  if (typeof description !== "string") return `${path}: no description line: a skill file has ${form}`;
  const bad = badInput(input);
  if (bad) return `${path}: input ${bad}: a skill file has ${form}`;
  return { name, path, description, input: input as Record<string, unknown> };
}

function badInput(input: unknown): string | undefined {
  if (!isPlainObject(input)) return "is not a JSON object (a JSON Schema)";
  if (input.type !== "object") return 'must be a JSON Schema of "type": "object" (a tool takes an object of arguments)';
  return undefined;
}

/** the skills offered here: each valid, trusted .ts file of the skills directory; the rest go to the log once */
export function listSkills(session: Pick<Session, "cwd" | "env" | "log">, reported: Set<string>): Skill[] {
  const dir = skillsDir(session.cwd);
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith(".ts"));
  } catch {
    return [];
  }
  const skills: Skill[] = [];
  const report = (message: string) => {
    if (!reported.has(message)) session.log("warn", message, "skills");
    reported.add(message);
  };
  for (const file of names.sort()) {
    const name = file.slice(0, -3);
    const path = join(dir, file);
    if (!SKILL_NAME.test(name)) {
      report(`${path} is not offered: a skill's name is ${SKILL_NAME_FORM}`);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue; // gone since the listing
    }
    if (!isTrusted(session.env, path, contentHash(text))) {
      report(`${path} is not offered: a project's skill runs only once trusted (mcpx trust ${path})`);
      continue;
    }
    const skill = parseSkill(name, path, text);
    if (typeof skill === "string") report(`${skill} (not offered)`);
    else skills.push(skill);
  }
  return skills;
}

const changed = new Set<() => void>();

/** calls `listener` whenever a skill is saved (a served connection then tells its client the tools changed) */
export function onSkillsChanged(listener: () => void): () => void {
  changed.add(listener);
  return () => changed.delete(listener);
}

/** mcpx_save_skill: checks the name, writes the file atomically inside the skills directory, trusts it */
export function saveSkill(args: unknown, session: Pick<Session, "cwd" | "env">): CallToolResult {
  const fail = (message: string): CallToolResult => ({ content: [{ type: "text", text: `mcpx_save_skill: ${message}` }], isError: true });
  if (!isPlainObject(args)) return fail("takes an object {name, description, input, source}");
  const unknown = Object.keys(args).filter((k) => !["name", "description", "input", "source"].includes(k));
  if (unknown.length) return fail(`unknown key ${JSON.stringify(unknown[0])}: it takes name, description, input, source`);
  const { name, description, input, source } = args;
  if (typeof name !== "string" || !SKILL_NAME.test(name))
    return fail(`name ${JSON.stringify(name)} is not a skill name: a name is ${SKILL_NAME_FORM} (the tool is then ${SKILL_PREFIX}NAME)`);
  if (typeof description !== "string" || !description.trim()) return fail("description must be a non-empty string (what the tool does, for the agent)");
  const bad = badInput(input);
  if (bad) return fail(`input ${bad}`);
  if (typeof source !== "string" || !/\bexport\s+default\b/.test(source))
    return fail("source must be TypeScript with `export default async function (args) { … }`, which a call runs with the tool's arguments");
  if (/^export const (description|input) =/m.test(source))
    return fail("source must not declare description or input itself: they are written from the arguments");

  const dir = skillsDir(session.cwd);
  // the directory (and .mcpx above it) must be real directories: a link would carry the write elsewhere
  for (const d of [join(dir, ".."), dir]) {
    if (existsSync(d) && lstatSync(d).isSymbolicLink()) return fail(`${d} is a symbolic link: a skill is written only into a real .mcpx/skills directory`);
  }
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.ts`);
  const text = header(description, input as Record<string, unknown>) + source + (source.endsWith("\n") ? "" : "\n");
  const temp = join(dir, `.${name}.ts.${crypto.randomUUID()}.tmp`);
  try {
    writeFileSync(temp, text, { flag: "wx", mode: 0o644 });
    renameSync(temp, path); // replaces a link at `path` itself, never what it points to
  } catch (e) {
    rmSync(temp, { force: true });
    return fail(`could not write ${path}: ${(e as Error).message}`);
  }
  writeRecord(session.env as Env, trustKey(path), text);
  for (const listener of changed) listener();
  return {
    content: [{ type: "text", text: `saved ${path}: the tool ${SKILL_PREFIX}${name} is offered now (the tool list changed)` }],
    structuredContent: { path, tool: SKILL_PREFIX + name },
  };
}
