// The own flags (those that are not settings) of the commands whose command line main.ts reads
// before it loads them, to start what they will most likely start (cmd/early-runtime.ts,
// lib/mcp/early-server.ts): run and exec, call, and the ad-hoc server flags they share with ls and
// types. A table of plain values, so reading it loads nothing of the commands.

import type { OwnFlag } from "../lib/settings/flags.ts";

export const AD_HOC_FLAGS: Record<string, OwnFlag> = {
  stdio: {
    type: "string",
    description: "Also use this stdio server, started from the command line (split like a shell would, no shell; $VAR expanded)",
    valueHint: '"CMD ARGS"',
  },
  "http-url": { type: "string", description: "Also use this Streamable HTTP server", valueHint: "URL" },
  name: {
    type: "string",
    description: "The ad-hoc server's name (default: from the command, npx -y @scope/server-foo → foo, or the URL's host, example.com → example-com)",
    valueHint: "NAME",
  },
};

/** the run/exec flags that are not registry settings (the parity test checks each against every door) */
export const SCRIPT_FLAGS: Record<string, OwnFlag> = {
  export: { type: "string", description: "Call this named export with the args spread, instead of the default export with the args array", valueHint: "NAME" },
  json: { type: "boolean", description: "Print one JSON envelope (ok, exitCode, result, emits, logs, stdout, stderr, calls, durationMs, runId, error)" },
  output: { type: "string", description: "text (default), json (same as --json) or stream (NDJSON frames on stdout)", valueHint: "MODE" },
  env: { type: "string", multiple: true, description: "Set a variable for the script (repeatable)", valueHint: "KEY=VALUE" },
  artifacts: {
    type: "string",
    description: "Write each artifact the script makes (artifact(name, data)) into DIR by its name; an existing file is an error unless --force",
    valueHint: "DIR",
  },
  force: { type: "boolean", description: "With --artifacts: replace a file of the same name (a link there is replaced, never followed)" },
  delivery: {
    type: "string",
    description: "uri (default): each artifact frame names where its bytes are; stream: also artifact.chunk frames after end (for --output stream)",
    valueHint: "MODE",
  },
  remote: { type: "boolean", description: "Run on the daemon at daemon.address (mcpx daemon): resolved here, run there, rendered here exactly as a local run" },
};

/** call's own flags */
export const CALL_FLAGS: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  json: { type: "boolean", description: "Print the raw MCP result as JSON" },
  "out-file": {
    type: "string",
    short: "o",
    valueHint: "FILE",
    description: "Write the result's image, audio or blob resource to FILE (several: FILE, FILE-2.EXT, …); a result with none is an error",
  },
  remote: {
    type: "boolean",
    description: "Call through the daemon at daemon.address (mcpx daemon): its servers and hooks, printed here exactly as a local call",
  },
};

/** resource's own flags */
export const RESOURCE_FLAGS: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  json: { type: "boolean", description: "Print the raw MCP result as JSON (a list: {resources, resourceTemplates}; a read: {contents}, blobs as base64)" },
  "out-file": {
    type: "string",
    short: "o",
    valueHint: "FILE",
    description: "Write the resource's blob contents to FILE (several: FILE, FILE-2.EXT, …); a resource with none is an error",
  },
  remote: {
    type: "boolean",
    description: "List or read through the daemon at daemon.address (mcpx daemon): its servers and hooks, printed (and -o written) here exactly as locally",
  },
};

/** prompt's own flags */
export const PROMPT_FLAGS: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  json: { type: "boolean", description: "Print the raw MCP result as JSON (a list: {prompts}; a get: {description, messages})" },
  remote: {
    type: "boolean",
    description: "List or get through the daemon at daemon.address (mcpx daemon): its servers and hooks, printed here exactly as locally",
  },
};
