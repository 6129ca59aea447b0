// The daemon's routes: ONE table, the single source for dispatch, 404/405 answers, docs/daemon.md and
// the test that proves every route is alive. There is no hook-registration route, and there must
// never be one (design §1: hooks are settings, not endpoints).

import { VERSION } from "../version.ts";
import { approvalsRoute, approveRoute, rejectRoute } from "./approvals-route.ts";
import { artifactRoute } from "./artifacts-route.ts";
import { auditRoute } from "./audit-route.ts";
import { callRoute } from "./call-route.ts";
import type { Handler, RouteContext } from "./context.ts";
import { eventsRoute } from "./events-route.ts";
import { execRoute } from "./exec-route.ts";
import { errorResponse, json } from "./http.ts";
import { promptRoute, resourceRoute } from "./feature-route.ts";
import { mcpRoute } from "./mcp-mount.ts";
import { readinessOf, readyRoute } from "./readiness.ts";
import { hooksRoute, settingRoute, settingsListRoute } from "./settings-route.ts";
import { toolsRoute } from "./tools-route.ts";

export interface Route {
  methods: readonly string[];
  /** literal segments and {name} placeholders (one segment each) */
  path: string;
  doc: string;
  handle: Handler;
}

const healthRoute: Handler = (_req, { deps }) =>
  json({
    ok: true,
    // what /v1/health/ready answers, said here too, without its status (liveness is 200 while the daemon serves)
    ...readinessOf(deps),
    version: VERSION,
    pid: process.pid,
    uptimeMs: Date.now() - deps.startedAt,
    runs: { active: deps.runs.active, total: deps.runs.total },
    draining: deps.runs.draining,
    drainGraceMs: deps.session.get("daemon.drainGrace"),
    events: { lastSeq: deps.engine.bus.lastSeq },
    cwd: deps.session.cwd,
    config: deps.session.config.files.map((f) => f.path),
  });

/** in match order: a literal path before a placeholder that would also match it */
export const ROUTES: readonly Route[] = [
  {
    methods: ["GET"],
    path: "/v1/health",
    doc:
      "liveness: 200 while the daemon serves, draining too: `{ok, ready, servers, why?, version, pid, uptimeMs, runs: {active, total}, draining, " +
      "drainGraceMs, events: {lastSeq}, cwd, config}`: `config` is the chain of config files it opened, lowest precedence first",
    handle: healthRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/health/ready",
    doc:
      'readiness: 200 `{ready: true, draining: false, servers: {NAME: "up"}}` once every configured server has started and ' +
      "answered initialize; else 503 with each server `starting`, `down` or `failed: WHY` and a `why`, and 503 while draining " +
      "(daemon.startServers starts the servers at boot)",
    handle: readyRoute,
  },
  {
    methods: ["POST"],
    path: "/v1/exec",
    doc:
      "runs an `ExecOptions` body; answers in its `output`: `stream` (NDJSON frames), `json` " +
      "(one envelope) or `text` (stdout); without it, NDJSON for `Accept: application/x-ndjson`, else one envelope",
    handle: execRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/artifacts/{id}",
    doc:
      "the bytes of an artifact a `/v1/exec` run made (its artifact frame's `uri` is this path), while the daemon keeps it " +
      "(`daemon.artifactTtl` after its run, `daemon.artifactMax` in all): `content-type` its mime, `content-disposition: " +
      "attachment` with its name, `x-mcpx-sha256`; an id that is not RUNID.N is a 400 (`BAD_ARTIFACT_ID`), an unknown one a " +
      "404 (`NO_ARTIFACT`), a forgotten one a 404 saying why (`ARTIFACT_EXPIRED`, `ARTIFACT_EVICTED`)",
    handle: artifactRoute,
  },
  {
    methods: ["POST"],
    path: "/v1/call",
    doc:
      "one `mcpx call` through the daemon's gate: body `{server, tool, args}` (or `items`: key=value as typed, coerced by the " +
      "tool's schema), `hooks`: call hooks for this call only (the caller's guards, capped at `refuse`), and `settings`: the " +
      "caller's `mcp.callTimeout` and `hooks.retryBudget` (no hook policy setting: those bind the daemon's own hooks too); answers " +
      "`{notes, answer}` (`answer` is `{ok, value}` or `{ok: false, error}`), or `{notes, thrown}` for refused arguments",
    handle: callRoute,
  },
  {
    methods: ["POST"],
    path: "/v1/resource",
    doc:
      "one `mcpx resource`: body `{server}` lists its resources and templates, answering `{notes, list: {resources, " +
      "resourceTemplates}}`; `{server, uri}` reads one through the daemon's gate (`resource.read`), answering `{notes, read}` " +
      "(`read` as `answer` above, blobs as the server's base64); `hooks`: resource.read hooks for this request only (capped " +
      "at `refuse`), `settings` as for `/v1/call`; `{notes, thrown}` for an unknown server",
    handle: resourceRoute,
  },
  {
    methods: ["POST"],
    path: "/v1/prompt",
    doc:
      "one `mcpx prompt`: body `{server}` lists its prompts, answering `{notes, list: {prompts}}`; `{server, name, args}` " +
      "(`args`: strings) gets one through the daemon's gate (`prompt.get`), answering `{notes, get}`; `hooks` (prompt.get) " +
      "and `settings` as for `/v1/resource`; `{notes, thrown}` for an unknown server or arguments the prompt does not declare",
    handle: promptRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/tools",
    doc:
      "the catalogue `mcpx ls` and `mcpx types` read: `{catalogue: {servers, rows: [{server, origin, imported, tools | error | broken}]}}`, " +
      "visible tools only; `server=` for one server, `list=none` for the names alone; `{thrown}` for an unknown server",
    handle: toolsRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/settings",
    doc: "every setting as the row `mcpx settings list --json` prints: value, origin, what it shadowed",
    handle: settingsListRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/settings/hooks",
    doc: "`{hooks: [{name, on, phase, action, effect, failure, origin}], mcpHookServers}`, as `mcpx hooks list --json`",
    handle: hooksRoute,
  },
  { methods: ["GET"], path: "/v1/settings/{path}", doc: "one setting's row; an unknown path is a 404 naming the accepted paths", handle: settingRoute },
  {
    methods: ["GET"],
    path: "/v1/events",
    doc: "the event bus as server-sent events: `kinds=`, `since=` or `Last-Event-ID`, `server=`, `tool=`, `session=`, `uri=`",
    handle: eventsRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/approvals",
    doc:
      "the runs an `ask` hook paused, in the daemon's state directory: `{approvals: [{id, createdAt, expiresAt, server, tool, " +
      "arguments, question, decision?, expired}]}`, oldest first, the rows `mcpx approvals --json` prints",
    handle: approvalsRoute,
  },
  {
    methods: ["POST"],
    path: "/v1/approvals/{id}/approve",
    doc:
      "`mcpx approve ID`: allows the paused call (body: none or `{}`); answers `{approval}`, the decided row; an id that is not " +
      "12 hex digits is a 400 (`BAD_APPROVAL_ID`), an unknown or used-up one a 404 (`NO_APPROVAL`), an expired one a 410 (`APPROVAL_EXPIRED`)",
    handle: approveRoute,
  },
  {
    methods: ["POST"],
    path: "/v1/approvals/{id}/reject",
    doc:
      "`mcpx reject ID`: refuses the paused call; body: none, `{}` or `{reason}` (a string, which the resumed run's refusal says); " +
      "answers and fails as approve",
    handle: rejectRoute,
  },
  {
    methods: ["GET"],
    path: "/v1/audit",
    doc:
      "the daemon's audit log (docs/audit.md): `{records, skipped}`, oldest first, the records `mcpx audit --json` prints; " +
      "`since=` (a duration back from now, like 1h or 7d, or an ISO time), `server=`, `tool=`, `decision=` (hook records " +
      "with that decision); a bad value is a 400 naming the parameter and what it accepts",
    handle: auditRoute,
  },
  { methods: ["GET", "POST", "DELETE"], path: "/mcp", doc: "mcpx as an MCP server over Streamable HTTP (docs/mcpserver.md)", handle: mcpRoute },
];

const compiled = ROUTES.map((route) => ({
  route,
  names: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
  re: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "([^/]+)")}$`),
}));

export type Match = { kind: "route"; route: Route; params: Record<string, string> } | { kind: "method"; allow: string[] } | { kind: "none" };

/** which route a method and path reach; pure, so routing is tested without a server */
export function matchRoute(method: string, pathname: string): Match {
  const allow: string[] = [];
  for (const c of compiled) {
    const m = c.re.exec(pathname);
    if (!m) continue;
    if (c.route.methods.includes(method)) {
      let params: Record<string, string>;
      try {
        params = Object.fromEntries(c.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      } catch {
        continue;
      }
      return { kind: "route", route: c.route, params };
    }
    allow.push(...c.route.methods);
  }
  return allow.length ? { kind: "method", allow: [...new Set(allow)] } : { kind: "none" };
}

export async function dispatch(req: Request, ctx: Omit<RouteContext, "params">): Promise<Response> {
  const m = matchRoute(req.method, ctx.url.pathname);
  if (m.kind === "none")
    return errorResponse(
      404,
      "NOT_FOUND",
      `no route ${ctx.url.pathname}: the daemon serves ${ROUTES.map((r) => `${r.methods.join("|")} ${r.path}`).join(", ")}`,
    );
  if (m.kind === "method")
    return errorResponse(
      405,
      "METHOD_NOT_ALLOWED",
      `${req.method} ${ctx.url.pathname} is not served: use ${m.allow.join(" or ")}`,
      {},
      { allow: m.allow.join(", ") },
    );
  return m.route.handle(req, { ...ctx, params: m.params });
}
