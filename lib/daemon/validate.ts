// valibot issues as the daemon's 400: one line per bad key path, saying what is accepted there. Pure,
// so the wording is unit-tested; any door that validates a body with a valibot schema can use it.

import * as v from "valibot";

export interface BodyIssue {
  /** dotted key path ("script.before.0"), or "(body)" for the body as a whole */
  path: string;
  message: string;
}

type AnySchema = v.GenericSchema | v.GenericSchemaAsync;

/** every issue of a failed safeParse, each naming its key path and what would be accepted */
export function describeIssues(schema: AnySchema, issues: readonly v.BaseIssue<unknown>[]): BodyIssue[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue) ?? "(body)";
    if (issue.type === "strict_object" && issue.expected === "never") {
      const keys = path.split(".");
      const accepted = objectKeys(schema, keys.slice(0, -1));
      const parent = keys.length > 1 ? ` in ${keys.slice(0, -1).join(".")}` : "";
      return {
        path,
        message: `unknown key ${issue.received}${acceptedText(accepted, parent)}`,
      };
    }
    if (issue.kind === "schema") return { path, message: `expected ${readable(issue.expected)}, got ${issue.received}` };
    return { path, message: `${issue.message}${issue.received && issue.received !== "Object" ? ` (got ${issue.received})` : ""}` };
  });
}

/** one line for the error's message: "timeoutMs: expected number, got "5"; bogus: unknown key …" */
export function issuesSummary(issues: readonly BodyIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}

function acceptedText(accepted: string[] | undefined, parent: string): string {
  if (!accepted) return "";
  return accepted.length ? `: accepted keys${parent} are ${accepted.join(", ")}` : `: no key is accepted${parent}`;
}

function readable(expected: string | null): string {
  if (!expected) return "something else";
  return expected.replace(/^\((.*)\)$/, "$1").replace(/ \| /g, " or ");
}

/** the keys of the object schema at `path` inside `schema`, unwrapping pipes, optionals, arrays and records */
function objectKeys(schema: AnySchema, path: readonly string[]): string[] | undefined {
  let s: unknown = schema;
  const unwrap = () => {
    for (;;) {
      const x = s as { type?: string; pipe?: unknown[]; wrapped?: unknown };
      if (x?.pipe && x.pipe[0] !== s) s = x.pipe[0];
      else if (x?.wrapped) s = x.wrapped;
      else return;
    }
  };
  unwrap();
  for (const key of path) {
    const x = s as { entries?: Record<string, unknown>; item?: unknown; value?: unknown; type?: string };
    if (x.entries && Object.hasOwn(x.entries, key)) s = x.entries[key];
    else if (x.item) s = x.item;
    else if (x.type === "record" && x.value) s = x.value;
    else return undefined;
    unwrap();
  }
  const entries = (s as { entries?: Record<string, unknown> }).entries;
  return entries ? Object.keys(entries) : undefined;
}
