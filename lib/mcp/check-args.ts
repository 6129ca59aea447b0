// Checks a tools/call's arguments against the tool's input schema before the server is called, with
// ajv (the validator the MCP SDK itself uses for output schemas). Servers send draft 2020-12 (the MCP
// default when a schema names no `$schema`) or draft-07 (what zod-to-json-schema writes): the schema's
// own `$schema` picks the dialect. A schema ajv cannot compile is the server's bug, not the user's:
// the call goes ahead with a warning rather than being refused for it. Most schemas and arguments
// are settled without ajv (surely-valid.ts); ajv judges the rest, and writes every error.

import { ArgumentError, describeSchema } from "./call-args.ts";
import { surelyValid } from "./surely-valid.ts";
import type { Tool } from "./tool.ts";
import { isPlainObject } from "../util/json-type.ts";
import { suggest } from "../util/did-you-mean.ts";
import { trace } from "../util/trace.ts";

interface AjvIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  schema?: unknown;
  parentSchema?: unknown;
}

const DRAFT_07 = /json-schema\.org\/draft-0[467]\/schema/;

type Validate = ((d: unknown) => boolean) & { errors?: AjvIssue[] | null };
interface AjvLike {
  compile(s: unknown): Validate;
}

let ajv2020: Promise<typeof import("ajv/dist/2020.js")> | undefined;
const loadAjv2020 = () => (ajv2020 ??= import("ajv/dist/2020.js"));

/**
 * A checker for one schema's dialect: a fresh instance each time, so schemas of different tools never
 * share ids. Schemas are not checked against their meta-schema (validateSchema: false; `$schema` is
 * taken off before compiling), so the meta-schemas are not even added (meta: false), which a
 * one-shot call paid for at every start.
 */
async function newAjv(draft07: boolean): Promise<AjvLike> {
  const [{ default: Ajv }, { default: addFormats }] = await Promise.all([draft07 ? import("ajv") : loadAjv2020(), import("ajv-formats")]);
  const ajv = new (Ajv as unknown as new (o: object) => AjvLike)({ strict: false, allErrors: true, verbose: true, validateSchema: false, meta: false });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv;
}

/**
 * Loads the checker for the MCP default dialect (draft 2020-12) and compiles one schema with it now,
 * in the background: the first instance and the first compile of a process are slow (loading, then
 * cold code), which a one-shot call then pays while its server starts, not after the server
 * has listed its tools.
 */
export function preloadArgChecks(): void {
  void newAjv(false).then(
    (ajv) => {
      ajv.compile({ type: "object", properties: { a: { type: "string" } } })({ a: "" });
      trace("argument checker warm");
    },
    () => {},
  );
}

/**
 * Throws ArgumentError (exit 2) when `args` do not satisfy the tool's input schema, naming each key
 * and what the schema accepts; returns a warning when the schema itself cannot be compiled.
 */
export async function checkArgs(server: string, tool: Tool, args: Record<string, unknown>): Promise<string | undefined> {
  const schema = tool.inputSchema;
  if (!isPlainObject(schema)) return undefined;
  const { $schema, ...body } = schema;
  // most schemas and most arguments: valid, and ajv need not even load; anything else is ajv's to judge
  if (surelyValid(body, args)) return undefined;
  const ajv = await newAjv(typeof $schema === "string" && DRAFT_07.test($schema));
  let validate: Validate;
  try {
    validate = ajv.compile(body);
  } catch (e) {
    return `the input schema of ${server}.${tool.name} does not compile (${(e as Error).message}); the arguments were not checked`;
  }
  if (validate(args)) return undefined;
  const problems = (validate.errors ?? []).map((issue) => describeIssue(issue, schema));
  throw new ArgumentError(
    `${server}.${tool.name} refuses these arguments: ${[...new Set(problems)].join("; ")} (mcpx types ${server}.${tool.name} shows what it takes)`,
  );
}

/** one ajv error as "argument "a" must be number (accepts number)", in the schema's own words */
function describeIssue(issue: AjvIssue, schema: Record<string, unknown>): string {
  const at = issue.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const name = at.length ? `argument "${at.join(".")}"` : "the arguments";
  const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  switch (issue.keyword) {
    case "required": {
      const key = String(issue.params.missingProperty);
      const full = [...at, key].join(".");
      const sub = at.length === 0 && isPlainObject(schema.properties) ? schema.properties[key] : undefined;
      return `argument "${full}" is required${sub !== undefined ? ` (${describeSchema(sub)}${descriptionOf(sub)})` : ""}`;
    }
    case "additionalProperties": {
      const key = String(issue.params.additionalProperty);
      const choices = at.length === 0 ? properties : [];
      return `unknown argument "${[...at, key].join(".")}"${suggest(key, choices)}${choices.length ? `: the tool takes ${choices.join(", ")}` : ""}`;
    }
    case "enum":
      return `${name} ${issue.message}: ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${name} ${issue.message ?? issue.keyword}${issue.parentSchema !== undefined ? ` (the schema: ${JSON.stringify(issue.parentSchema)})` : ""}`;
  }
}

function descriptionOf(schema: unknown): string {
  return isPlainObject(schema) && typeof schema.description === "string" ? `: ${schema.description}` : "";
}
