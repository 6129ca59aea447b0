// The loopback redirect of `mcpx auth` (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 only, on the
// port the stored client was registered with when it is free (so the registered redirect URI stays
// exact), else an ephemeral one. It takes exactly one answer at CALLBACK_PATH whose state matches,
// and refuses one its check refuses (the authorization server's `iss`, iss.ts) with the reason.

import { CALLBACK_PATH } from "./provider.ts";

/**
 * How long `mcpx auth` waits for the browser to come back: a person reads a consent page, may have
 * to log in first, with a password manager. Five minutes; lower it only with a way to retry.
 */
const CALLBACK_TIMEOUT_MS = 5 * 60_000;

export interface Callback {
  redirectUrl: string;
  /** the authorization code, once the browser comes back with it and the expected state */
  code: Promise<string>;
  close(): void;
}

const PAGE = (title: string, text: string) =>
  new Response(`<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>\n`, { headers: { "content-type": "text/html; charset=utf-8" } });

/** escapes what the authorization server put in an error, for the page */
const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Listens for the redirect. `preferredPort` is tried first (undefined or busy: an ephemeral port);
 * `state` is the value the authorization request carried: an answer without it is not ours. `check`
 * says why an answer with our state is refused anyway, or undefined to take it.
 */
export function listenForCallback(
  state: () => string,
  preferredPort: number | undefined,
  check: (params: URLSearchParams) => string | undefined,
  timeoutMs = CALLBACK_TIMEOUT_MS,
): Callback {
  let resolve!: (code: string) => void;
  let reject!: (err: Error) => void;
  const code = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  let done = false;
  const fetch = (req: Request): Response => {
    const url = new URL(req.url);
    if (url.pathname !== CALLBACK_PATH || req.method !== "GET") return new Response("not found\n", { status: 404 });
    if (done) return PAGE("mcpx", "This login is already finished. You can close this window.");
    if (url.searchParams.get("state") !== state()) return new Response("state does not match this login\n", { status: 400 });
    done = true;
    const refused = check(url.searchParams);
    if (refused) {
      reject(new Error(refused));
      return PAGE("mcpx: not authorized", `mcpx refused this answer (${html(refused)}). You can close this window.`);
    }
    const error = url.searchParams.get("error");
    const got = url.searchParams.get("code");
    if (error || !got) {
      const why = error
        ? `${error}${url.searchParams.get("error_description") ? `: ${url.searchParams.get("error_description")}` : ""}`
        : "the redirect carried no code";
      reject(new Error(`the authorization server refused: ${why}`));
      return PAGE("mcpx: not authorized", `mcpx was not authorized (${html(why)}). You can close this window.`);
    }
    resolve(got);
    return PAGE("mcpx: authorized", "mcpx is authorized. You can close this window and go back to the terminal.");
  };
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({ hostname: "127.0.0.1", port: preferredPort ?? 0, fetch });
  } catch {
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  }
  const timer = setTimeout(() => reject(new Error(`no answer reached ${CALLBACK_PATH} within ${timeoutMs / 1000}s`)), timeoutMs);
  void code.catch(() => {}).finally(() => clearTimeout(timer));
  return {
    redirectUrl: `http://127.0.0.1:${server.port}${CALLBACK_PATH}`,
    code,
    close: () => {
      clearTimeout(timer);
      // not forced: the browser's request that resolved the code still gets its page
      void server.stop();
    },
  };
}
