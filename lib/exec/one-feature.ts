// One `mcpx resource` or `mcpx prompt` request, wherever it runs (the CLI's own engine, or the
// daemon's for --remote, lib/daemon/feature-route.ts): the server is looked up in the config in
// force, a list is the server's own, a read or a get goes through the gate (gated-feature.ts), and
// a prompt's arguments are checked against its declared ones first. Both doors share this so a
// remote request answers exactly what a local one does; the caller renders the answer.

import type { LoadedConfig } from "../config/load.ts";
import { UsageError } from "../errors/usage-error.ts";
import type { Gate } from "../hooks/types.ts";
import type { Prompt, Resource, ResourceTemplate } from "../mcp/server-features.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import type { EngineParts } from "../session/engine.ts";
import { suggest } from "../util/did-you-mean.ts";
import type { Frame } from "./frames.ts";
import { featureThroughGate } from "./gated-feature.ts";

type Parts = EngineParts & { gate: Gate };
type Push = (f: Frame) => void;

/** a resource request's answer: the lists, or one read */
export type ResourceAnswer = { list: { resources: Resource[]; resourceTemplates: ResourceTemplate[] } } | { read: CallAnswer };
/** a prompt request's answer: the list, or one get */
export type PromptAnswer = { list: { prompts: Prompt[] } } | { get: CallAnswer };

/** the server a request names, configured (or ad hoc), else a usage error (exit 2); one withheld from an untrusted file is its own error */
export function knownServer(config: Pick<LoadedConfig, "servers" | "broken">, server: string): string {
  const withheld = config.broken[server];
  if (withheld?.untrusted && !config.servers[server]) throw withheld.error;
  if (!config.servers[server] && !withheld) {
    const names = Object.keys(config.servers);
    throw new UsageError(`unknown server "${server}"${suggest(server, names)}: configured servers are ${names.join(", ") || "none"} (see mcpx ls)`);
  }
  return server;
}

/** the server's resources and templates (no URI), or the resource at `uri` read through the resource.read point */
export async function oneResource(engine: Parts, server: string, uri: string | undefined, push: Push): Promise<ResourceAnswer> {
  if (uri === undefined) {
    const [resources, resourceTemplates] = (await Promise.all([
      engine.pool.list(server, "resources/list"),
      engine.pool.list(server, "resources/templates/list"),
    ])) as [Resource[], ResourceTemplate[]];
    return { list: { resources, resourceTemplates } };
  }
  return { read: await featureThroughGate(engine, engine.gate, { op: "resource.read", server, target: uri, args: {} }, { push }) };
}

/** the server's prompts (no name), or the prompt `name` got through the prompt.get point, its arguments checked first */
export async function onePrompt(engine: Parts, server: string, name: string | undefined, args: Record<string, string>, push: Push): Promise<PromptAnswer> {
  const prompts = (await engine.pool.list(server, "prompts/list")) as Prompt[];
  if (name === undefined) return { list: { prompts } };
  // a prompt the server does not list is the server's to refuse (its error, exit 1)
  const declared = prompts.find((p) => p.name === name);
  if (declared) checkArgs(server, declared, args);
  return { get: await featureThroughGate(engine, engine.gate, { op: "prompt.get", server, target: name, args }, { push }) };
}

/** a missing required argument or an unknown key is a usage error (exit 2) naming it: the server never sees the request */
function checkArgs(server: string, prompt: Prompt, args: Record<string, string>): void {
  const declared = (prompt.arguments ?? []).map((a) => a.name);
  const what = `prompt ${server}.${prompt.name}`;
  for (const key of Object.keys(args))
    if (!declared.includes(key))
      throw new UsageError(`${what} has no argument "${key}"${suggest(key, declared)}: it takes ${declared.join(", ") || "none"} (see mcpx prompt ${server})`);
  const missing = (prompt.arguments ?? []).filter((a) => a.required && !Object.hasOwn(args, a.name)).map((a) => a.name);
  if (missing.length)
    throw new UsageError(
      `${what} needs ${missing.map((m) => `${m}=…`).join(" ")}: missing required argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
    );
}
