// GET /v1/artifacts/{id}: the bytes of an artifact one of the daemon's runs made, while the daemon
// keeps it (kept-artifacts.ts: daemon.artifactTtl after its run, daemon.artifactMax in all). The
// `uri` of a /v1/exec run's artifact frame is this route's path. It is /v1's, so it is the user's
// (design §7): the unix socket's mode, or the bearer token on TCP, checked before any route.

import { existsSync } from "node:fs";
import type { Handler } from "./context.ts";
import { errorResponse } from "./http.ts";
import type { Lookup } from "./kept-artifacts.ts";

/** the artifact frame's `uri` on the daemon: a path on the daemon's own address */
export const artifactPath = (id: string): string => `/v1/artifacts/${id}`;

/** the header carrying the artifact's sha256, so a client checks what it got without another request */
const SHA256_HEADER = "x-mcpx-sha256";

/**
 * The status and answer of each reason an artifact is not served; answers, not lib/errors codes: the
 * client tells them from the router's NOT_FOUND (a daemon that predates this route).
 */
const NO_ARTIFACT: Record<Exclude<Lookup, { ok: true }>["why"], { status: number; answer: string }> = {
  id: { status: 400, answer: "BAD_ARTIFACT_ID" },
  unknown: { status: 404, answer: "NO_ARTIFACT" },
  expired: { status: 404, answer: "ARTIFACT_EXPIRED" },
  evicted: { status: 404, answer: "ARTIFACT_EVICTED" },
};

export const artifactRoute: Handler = (_req, { deps, params }) => {
  const found = deps.artifacts.kept.get(params.id!);
  if (!found.ok) {
    const { status, answer } = NO_ARTIFACT[found.why];
    return errorResponse(status, answer, found.message);
  }
  const a = found.artifact;
  if (!existsSync(a.path)) {
    return errorResponse(
      404,
      NO_ARTIFACT.unknown.answer,
      `artifact ${a.id}: its file ${a.path} is gone from the daemon's cache (removed by hand?): run the script again to make it again`,
    );
  }
  return new Response(Bun.file(a.path), {
    headers: {
      "content-type": a.mime,
      "content-length": String(a.size),
      "content-disposition": attachment(a.name),
      [SHA256_HEADER]: a.sha256,
      "cache-control": "no-store",
    },
  });
};

/**
 * `attachment; filename="NAME"` for a name that is one file name (no control characters: the run
 * refused those), with `"` and `\` escaped; a name beyond ASCII gets an ASCII stand-in there
 * (`_` for each such character) and its exact UTF-8 in `filename*` (RFC 6266, RFC 8187), which
 * clients prefer.
 */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/gu, "_").replace(/["\\]/g, "\\$&");
  const plain = `attachment; filename="${ascii}"`;
  if (/^[\x20-\x7e]*$/.test(name)) return plain;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${plain}; filename*=UTF-8''${encoded}`;
}
