// The daemon's small HTTP vocabulary: JSON answers, the one error shape every route uses, the bearer
// check for TCP and a body reader that refuses oversized bodies without buffering them.

/** every error the daemon answers: {error: {code, message, …details}} */
interface ErrorBody {
  error: { code: string; message: string; [k: string]: unknown };
}

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value, null, 2) + "\n", { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

export function errorResponse(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const body: ErrorBody = { error: { code, message, ...extra } };
  return json(body, status, headers);
}

/**
 * The 503 for a run or request Runs refused (lib/daemon/runs.ts): BUSY (daemon.maxRuns) or DRAINING
 * (SIGTERM), with Retry-After so a client or a load balancer tries again, here or at another daemon.
 */
export function refusedRun(what: string, refused: { busy: string; kind: string }): Response {
  return errorResponse(503, refused.kind, `${what}: ${refused.busy}`, {}, { "retry-after": "1" });
}

/**
 * Whether the request carries `Authorization: Bearer TOKEN`. Both sides are hashed first so the
 * comparison takes the same time whatever the length or content of what was sent.
 */
export function bearerOk(req: Request, token: string): boolean {
  const header = req.headers.get("authorization") ?? "";
  const m = /^Bearer[ \t]+(.+)$/i.exec(header.trim());
  const sent = new Bun.CryptoHasher("sha256").update(m ? m[1]!.trim() : "\0no token").digest();
  const want = new Bun.CryptoHasher("sha256").update(token).digest();
  return crypto.timingSafeEqual(sent, want) && m !== null;
}

type BodyResult = { ok: true; text: string } | { ok: false; response: Response };

/**
 * The request body as text, at most `max` bytes. Content-Length is checked first, and the bytes are
 * counted while reading too, so a chunked body (or one that lies about its length) is refused as
 * soon as it passes the limit rather than after it has all been buffered.
 */
async function readBody(req: Request, max: number): Promise<BodyResult> {
  const tooLarge = (n?: number) =>
    ({
      ok: false,
      response: errorResponse(
        413,
        "TOO_LARGE",
        `the request body${n !== undefined ? ` (${n} bytes)` : ""} is larger than daemon.maxBody ` +
          `(${max} bytes): send less, or raise daemon.maxBody where the daemon runs`,
      ),
    }) as const;
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) return tooLarge(Number(declared));
  if (!req.body) return { ok: true, text: "" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return tooLarge();
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}

/**
 * The JSON body, or a 400 saying where it stopped parsing. `optional`: an empty body is `undefined`
 * (a route whose body has only optional keys), else it is a 400.
 */
export async function readJson(
  req: Request,
  max: number,
  { optional = false }: { optional?: boolean } = {},
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const body = await readBody(req, max);
  if (!body.ok) return body;
  if (body.text.trim() === "") {
    if (optional) return { ok: true, value: undefined };
    return { ok: false, response: errorResponse(400, "BAD_JSON", "the request body is empty: send one JSON object") };
  }
  try {
    return { ok: true, value: JSON.parse(body.text) };
  } catch (err) {
    return { ok: false, response: errorResponse(400, "BAD_JSON", `the request body is not valid JSON (${(err as Error).message}): send one JSON object`) };
  }
}

/** whether the client asked for NDJSON frames (Accept: application/x-ndjson, anywhere in the list) */
export function wantsNdjson(req: Request): boolean {
  return (req.headers.get("accept") ?? "").split(",").some((part) => part.split(";")[0]!.trim().toLowerCase() === "application/x-ndjson");
}
