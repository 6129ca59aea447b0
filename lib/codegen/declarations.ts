// The text of mcpx-globals.d.ts (the globals a script run by mcpx sees, typed from its servers'
// tools) and of `mcpx types NS[.tool]`.
//
// The file is a module (`export {}`) that augments the global scope with `declare global`, so the
// helper types it needs (server interfaces, $defs aliases) stay private to it instead of leaking
// into every script's type namespace, where a schema's `Node` could clash with the user's.

import { resolveToolName, toIdentifier } from "../mcp/tool-names.ts";
import { namespaceBindings, toolBindings } from "./identifiers.ts";
import { jsDoc } from "./jsdoc.ts";
import { propertyName } from "./schema-to-ts.ts";
import { RAW_RESULT_TYPE, toolSignature, toolTypes, type ServerTools, type Tool } from "./tool-signature.ts";

export type { ServerTools } from "./tool-signature.ts";

// Global type names the generated file refers to; no alias may shadow them inside the module.
const REFERENCED_GLOBAL_TYPES = [
  "Promise",
  "Record",
  "Error",
  "ToolError",
  "McpxNamespace",
  "McpxLog",
  "McpxRawResult",
  "McpxResourceResult",
  "McpxPromptResult",
];

// Mirrors launcher/runtime.ts and launcher/unwrap.ts; change both together.
const CALL_DOC = [
  'Calls a tool by the real names of its server and itself, e.g. `call("my-server", "get-sum", { a: 1 })`;',
  "a tool's identifier works too. Hook tools (names starting with `_`) are refused like unknown tools.",
  "The result is unwrapped: the `structuredContent` object when the server sent one, else the text",
  "content parsed as JSON, else the text itself. `{ raw: true }` (or `ns.tool.raw(args)`) returns the raw",
  "MCP result (`content`, `structuredContent`, `isError`, `_meta`) instead.",
  "A tool that reports an error rejects with a `ToolError`.",
].join("\n");

const FIXED_GLOBALS = `\
  ${jsDoc([CALL_DOC], "  ")}function call(server: string, tool: string, args?: Record<string, unknown>, options?: { raw?: boolean }): Promise<unknown>;

  /**
   * A server's resources by URI (a template's URI filled in), e.g. \`await resources.read("everything", "demo://resource/static/document/features.md")\`.
   * The read passes the resource.read hooks; the result is the raw MCP result (\`contents\`: \`text\` or base64 \`blob\`).
   */
  const resources: { read(server: string, uri: string): Promise<McpxResourceResult> };

  /**
   * A server's prompts by name, e.g. \`await prompts.get("everything", "args-prompt", { city: "Paris" })\`; arguments are strings.
   * The get passes the prompt.get hooks; the result is the raw MCP result (\`description\`, \`messages\`).
   */
  const prompts: { get(server: string, name: string, args?: Record<string, string>): Promise<McpxPromptResult> };

  /**
   * Files kept out of the caller's context: an agent session's workspace (mcpx serve, a /mcp session) lasts as
   * long as the session, any other run's as long as the run. Names are one file name (no "/", no leading ".");
   * the total is bounded by exec.workspaceQuota. E.g. \`await workspace.write("rows.json", JSON.stringify(rows))\`.
   */
  const workspace: {
    write(name: string, data: string | Uint8Array | ArrayBuffer): Promise<{ name: string; size: number }>;
    append(name: string, data: string | Uint8Array | ArrayBuffer): Promise<{ name: string; size: number }>;
    read(name: string): Promise<string>;
    readBytes(name: string): Promise<Uint8Array>;
    list(): Promise<Array<{ name: string; size: number }>>;
    /** true when there was such a file */
    remove(name: string): Promise<boolean>;
  };

  /**
   * Hands a file back to whoever started the run (a report, a chart, a screenshot): announced in an \`artifact\` frame,
   * written by \`mcpx run --artifacts DIR\`, fetched from the daemon at its uri, content of \`mcpx_exec\`'s answer.
   * The name is one file name; the MIME type is guessed from its extension unless given.
   * E.g. \`await artifact("report.csv", rows.join("\\n"), { mime: "text/csv" })\`.
   */
  function artifact(
    name: string,
    // a Blob and a ReadableStream by their shape: the file type-checks without the DOM libraries
    data:
      | string
      | Uint8Array
      | ArrayBuffer
      | { arrayBuffer(): Promise<ArrayBuffer> }
      | { getReader(): { read(): Promise<{ done: boolean; value?: string | Uint8Array }> } },
    options?: { mime?: string },
  ): Promise<{ id: string; name: string; mime: string; size: number; sha256: string }>;

  /** Writes a log line (stderr; a \`log\` frame); the methods choose the level. */
  const log: McpxLog;

  /** Emits a value as an \`emit\` frame for whoever started the run. */
  function emit(value: unknown): void;

  /** The script being run. */
  const script: {
    /** Path of the script file (exec snippets are written to a file too). */
    readonly path: string;
    readonly name: string;
    /** Arguments after the script on the command line. */
    readonly args: string[];
    /** The function named by --export, when one was given. */
    readonly export?: string;
    readonly runId: string;
  };

  /** The outcome, for phase hooks: \`value\` is set before onSuccess, \`error\` before onError. */
  const result: { value?: unknown; error?: unknown };

  /** The error a tool call rejects with when the tool reports an error. */
  class ToolError extends Error {
    constructor(message: string, server: string, tool: string, raw: unknown, code?: string);
    server: string;
    tool: string;
    /** The raw MCP result (or error) the tool answered with. */
    raw: unknown;
    code?: string;
  }`;

const HELPER_TYPES = `\
/** A tool's raw MCP result, as \`fn.raw(args)\` and \`call(server, tool, args, { raw: true })\` give it. */
type McpxRawResult = ${RAW_RESULT_TYPE};

/** What \`resources.read\` gives: the resource's contents, each text or a base64 blob. */
type McpxResourceResult = {
  contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> }>;
  _meta?: Record<string, unknown>;
};

/** What \`prompts.get\` gives: the prompt's messages, each with one content item (text, image, audio, resource, resource_link). */
type McpxPromptResult = {
  description?: string;
  messages: Array<{ role: "user" | "assistant"; content: { type: string; text?: string; [key: string]: unknown } }>;
  _meta?: Record<string, unknown>;
};

/** A server's tools by real name, for servers and tools known only at run time. */
type McpxNamespace = {
  readonly [tool: string]: ((args?: Record<string, unknown>) => Promise<unknown>) & { raw(args?: Record<string, unknown>): Promise<McpxRawResult> };
};

/** \`log(...)\` logs at info level; the methods choose the level. */
interface McpxLog {
  (...args: unknown[]): void;
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}`;

// Allocates unique names in one scope, suffixing `_2`, `_3`… on a clash.
function nameAllocator(initial: Iterable<string>) {
  const taken = new Set(initial);
  return {
    taken: taken as ReadonlySet<string>,
    add: (names: Iterable<string>) => {
      for (const n of names) taken.add(n);
    },
    allocate(base: string): string {
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
      taken.add(name);
      return name;
    },
  };
}

// The text of mcpx-globals.d.ts for these servers, in the order given.
export function generateDeclarations(listed: ReadonlyArray<ServerTools>): string {
  // Server names are config keys, so a repeat is a caller's slip; the first one wins.
  const servers = listed.filter((s, i) => listed.findIndex((x) => x.name === s.name) === i);
  const names = nameAllocator(REFERENCED_GLOBAL_TYPES);
  const aliases: string[] = [];
  const interfaces: string[] = [];
  const typeNames = servers.map((server) => {
    // A server whose tools are unknown is typed as "any tool", rather than as having none.
    if (server.unknownTools === true) return "McpxNamespace";
    const typeName = names.allocate(`McpxServer_${toIdentifier(server.name)}`);
    const body = namespaceMembers(
      server,
      "  ",
      (tool, id) => {
        const prefix = `${toIdentifier(server.name)}_${id}`;
        // Allocated before use so they are unique; they appear only if a schema recurses via "#".
        const rootNames = { args: names.allocate(`${prefix}_args`), output: names.allocate(`${prefix}_result`) };
        const types = toolTypes(tool, { indent: "  ", aliasIndent: "", taken: names.taken, rootNames });
        names.add(types.aliasNames);
        aliases.push(...types.aliases);
        return types;
      },
      (tool) => `call(${JSON.stringify(server.name)}, ${JSON.stringify(tool)})`,
    );
    interfaces.push(`/** Tools of MCP server ${JSON.stringify(server.name)}. */\ninterface ${typeName} {\n${body}}`);
    return typeName;
  });

  const bindings = namespaceBindings(servers.map((s) => s.name));
  const header = [
    "// Generated by mcpx: the globals of scripts run by mcpx, typed from the tools of their MCP servers.",
    "// Do not edit: mcpx rewrites it. Editors apply it to the scripts of a project that includes it (a",
    '// tsconfig.json in this folder does), or to a script that starts with /// <reference path="./mcpx-globals.d.ts" />.',
    ...bindings
      .filter((b) => b.hiddenBecause !== undefined)
      .map((b) => `// Server ${JSON.stringify(b.name)} is reachable only as tools[${JSON.stringify(b.name)}]: ${b.hiddenBecause}.`),
  ];

  const globals: string[] = [];
  bindings.forEach((b, i) => {
    if (b.hiddenBecause !== undefined) return;
    const untyped = servers[i]?.unknownTools === true ? " Its tools were not listed, so they are untyped." : "";
    globals.push(
      `  /** MCP server ${JSON.stringify(b.name)}; also tools[${JSON.stringify(b.name)}].${untyped} */\n  const ${b.identifier}: ${typeNames[i]};\n`,
    );
  });
  const toolsMembers = servers.map((s, i) => `    readonly ${propertyName(s.name)}: ${typeNames[i]};\n`).join("");
  globals.push(
    "  /** Every server's tools by its real name, including servers that have no global of their own. */\n" +
      `  const tools: {\n${toolsMembers}  } & { readonly [server: string]: McpxNamespace | undefined };\n`,
  );

  return [
    header.join("\n"),
    ...(aliases.length > 0 ? [aliases.join("\n\n")] : []),
    ...interfaces,
    HELPER_TYPES,
    `declare global {\n${globals.join("\n")}\n${FIXED_GLOBALS}\n}`,
    "export {};\n",
  ].join("\n\n");
}

// What `mcpx types NS` and `mcpx types NS.tool` print: the server as a declared namespace, or one
// tool's argument and result types and its signature. `toolName` may be the real name or its
// identifier; hook tools are unknown here as everywhere.
export function renderToolTypes(server: ServerTools, toolName?: string): string {
  const [binding] = namespaceBindings([server.name]);
  const identifier = toIdentifier(server.name);
  const where =
    binding?.hiddenBecause === undefined
      ? `global ${identifier}; also tools[${JSON.stringify(server.name)}]`
      : `reachable only as tools[${JSON.stringify(server.name)}]: ${binding.hiddenBecause}`;
  const header = `// MCP server ${JSON.stringify(server.name)} (${where})`;
  if (toolName === undefined) {
    const names = nameAllocator([]);
    const aliases: string[] = [];
    const body = namespaceMembers(
      server,
      "  ",
      (tool, id) => {
        const types = toolTypes(tool, {
          indent: "  ",
          aliasIndent: "  ",
          taken: names.taken,
          rootNames: { args: `${id}_args`, output: `${id}_result` },
        });
        names.add(types.aliasNames);
        aliases.push(...types.aliases.map((a) => `  ${a}\n`));
        return types;
      },
      (tool) => `call(${JSON.stringify(server.name)}, ${JSON.stringify(tool)})`,
      "function ",
    );
    const aliasBlock = aliases.length > 0 ? `${aliases.join("\n")}\n` : "";
    return `${header}\ndeclare namespace ${identifier} {\n${aliasBlock}${body}}\n`;
  }

  const realNames = server.tools.map((t) => t.name);
  const real = resolveToolName(toolName, realNames);
  const tool = server.tools.find((t) => t.name === real);
  if (tool === undefined) {
    const known = toolBindings(realNames).map((b) => b.name);
    const hint = known.length > 0 ? `use one of ${known.join(", ")}` : "it lists no tools";
    throw new Error(`unknown tool ${JSON.stringify(toolName)} on MCP server ${JSON.stringify(server.name)}: ${hint}`);
  }
  const toolBinding = toolBindings(realNames).find((b) => b.name === tool.name);
  const toolId = toolBinding?.identifier ?? toIdentifier(tool.name);
  const types = toolTypes(tool, {
    indent: "  ",
    aliasIndent: "  ",
    taken: new Set(),
    rootNames: { args: "Args", output: "Result" },
  });
  const lines = [...types.aliases];
  // A recursive root schema already declared Args/Result among the aliases.
  const toolRef = `${JSON.stringify(tool.name)} of MCP server ${JSON.stringify(server.name)}`;
  if (types.args !== "Args") lines.push(`${jsDoc([`Arguments of ${toolRef}.`], "  ")}type Args = ${types.args};`);
  if (types.output !== "Result") {
    const doc =
      tool.outputSchema === undefined
        ? `Result of ${toolRef}: it has no outputSchema, so the unwrapped result (structuredContent, JSON-parsed text, or text).`
        : `Result of ${toolRef}.`;
    lines.push(`${jsDoc([doc], "  ")}type Result = ${types.output};`);
  }
  const signature = { args: "Args", argsOptional: types.argsOptional, output: "Result" };
  if (toolBinding?.hiddenBecause === undefined) {
    lines.push(toolSignature(tool, toolId, signature, "  ", "function "));
  } else {
    lines.push(`// Reachable only as call(${JSON.stringify(server.name)}, ${JSON.stringify(tool.name)}, args): ${toolBinding.hiddenBecause}.`);
  }
  return `${header}\ndeclare namespace ${identifier} {\n${lines.map((l) => `  ${l}`).join("\n\n")}\n}\n`;
}

// The members of one server's namespace, each tool rendered by `typesOf`; tools whose identifier is
// taken get a comment saying how to reach them instead.
function namespaceMembers(
  server: ServerTools,
  indent: string,
  typesOf: (tool: Tool, identifier: string) => ReturnType<typeof toolTypes>,
  reachBy: (toolName: string) => string,
  prefix = "",
): string {
  return toolBindings(server.tools.map((t) => t.name))
    .map((b) => {
      if (b.hiddenBecause !== undefined) {
        return `${indent}// ${JSON.stringify(b.name)} is reachable only as ${reachBy(b.name)}: ${b.hiddenBecause}.\n`;
      }
      const tool = server.tools.find((t) => t.name === b.name) as Tool;
      return `${indent}${toolSignature(tool, b.identifier, typesOf(tool, b.identifier), indent, prefix, prefix === "" ? "McpxRawResult" : RAW_RESULT_TYPE)}\n`;
    })
    .join("");
}

/**
 * What `mcpx types SERVER` says after the namespace when the server has resources or prompts: the
 * typed functions that read them (declared in mcpx-globals.d.ts) and the commands that list them.
 */
export function featuresNote(server: string, counts: { resources: number; resourceTemplates: number; prompts: number }): string {
  const name = JSON.stringify(server);
  const lines: string[] = [];
  if (counts.resources + counts.resourceTemplates > 0)
    lines.push(
      `// ${counts.resources} resources, ${counts.resourceTemplates} templates: ` +
        `resources.read(${name}, uri): Promise<McpxResourceResult> (mcpx resource ${server} lists them)`,
    );
  if (counts.prompts > 0)
    lines.push(`// ${counts.prompts} prompts: prompts.get(${name}, name, args?): Promise<McpxPromptResult> (mcpx prompt ${server} lists them)`);
  return lines.length ? `${lines.join("\n")}\n` : "";
}
