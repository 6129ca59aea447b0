// The event kinds: ONE table, the single source for what the bus may publish, what an observe hook's
// `on` prefix can match, and the guard test that proves every kind is published by something. A kind
// nothing publishes must not be here (seed 003: call.started and task.updated were declared and dead).
//
// Each entry has a description and the shape of its data, written as field → type tag. The TypeScript
// type of each kind's data is derived from those tags, so the table and the types cannot drift.
// The in-band `gap` item a subscription may yield is not a kind: nothing publishes it (see bus.ts).

/** the type tags a data field may have; a trailing "?" marks the field optional */
type FieldTag = "string" | "number" | "boolean" | "string?" | "number?" | "boolean?";

export interface KindSpec {
  description: string;
  data: Readonly<Record<string, FieldTag>>;
}

export const EVENT_KINDS = {
  "server.started": {
    description: "a pooled upstream MCP server instance started and answered initialize",
    data: { server: "string" },
  },
  "server.stopped": {
    description: "a pooled upstream MCP server instance stopped (idle, shutdown, crash, refused by a hook)",
    data: { server: "string", reason: "string" },
  },
  "call.finished": {
    description: "one tools/call going upstream finished, successfully or not",
    data: { server: "string", tool: "string", ok: "boolean", durationMs: "number", argsHash: "string", runId: "string?", by: "string?" },
  },
  "hook.failed": {
    description: "a hook failed: non-zero exit, timeout, unparseable output, missing executable, plugin error",
    data: { hook: "string", point: "string", phase: "string", reason: "string", runId: "string?" },
  },
  "script.started": {
    description: "a script run started (mcpx run/exec, local or remote)",
    data: { runId: "string", script: "string" },
  },
  "script.finished": {
    description: "a script run finished, with its exit code",
    data: { runId: "string", ok: "boolean", exitCode: "number", durationMs: "number" },
  },
  "tools.changed": {
    description: "an upstream server's tool list changed (notifications/tools/list_changed)",
    data: { server: "string" },
  },
} as const satisfies Record<string, KindSpec>;

export type EventKind = keyof typeof EVENT_KINDS;
export const EVENT_KIND_NAMES = Object.keys(EVENT_KINDS) as EventKind[];

type TagType<T extends FieldTag> = T extends "string" | "string?" ? string : T extends "number" | "number?" ? number : boolean;
type Fields<K extends EventKind> = (typeof EVENT_KINDS)[K]["data"];
type RequiredKeys<D> = { [F in keyof D]: D[F] extends `${string}?` ? never : F }[keyof D];
type OptionalKeys<D> = { [F in keyof D]: D[F] extends `${string}?` ? F : never }[keyof D];
type Simplify<T> = { [P in keyof T]: T[P] };

/** the data an event of kind K carries, derived from the table */
export type EventData<K extends EventKind> = Simplify<
  { [F in RequiredKeys<Fields<K>>]: TagType<Fields<K>[F] & FieldTag> } & {
    [F in OptionalKeys<Fields<K>>]?: TagType<Fields<K>[F] & FieldTag>;
  }
>;

export function isEventKind(kind: string): kind is EventKind {
  return Object.hasOwn(EVENT_KINDS, kind);
}

/**
 * Checks data against its kind's shape and returns the problems (empty when it fits). Extra fields
 * are problems too, so the table stays the whole truth. The bus does not call this on publish (the
 * types already hold producers to it); tests and the guard test do.
 */
export function checkEventData(kind: string, data: unknown): string[] {
  if (!isEventKind(kind)) return [`unknown event kind "${kind}"`];
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [`${kind}: data must be an object`];
  const shape: Readonly<Record<string, FieldTag>> = EVENT_KINDS[kind].data;
  const record = data as Record<string, unknown>;
  const problems: string[] = [];
  for (const [field, tag] of Object.entries(shape)) {
    const optional = tag.endsWith("?");
    const type = optional ? tag.slice(0, -1) : tag;
    const value = record[field];
    if (value === undefined) {
      if (!optional) problems.push(`${kind}: missing ${field} (${type})`);
    } else if (typeof value !== type) problems.push(`${kind}: ${field} must be a ${type}, got ${typeof value}`);
  }
  for (const field of Object.keys(record)) {
    if (!Object.hasOwn(shape, field)) problems.push(`${kind}: unexpected field ${field}`);
  }
  return problems;
}
