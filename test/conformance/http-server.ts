// The conformance suite's way into the daemon's /mcp: the daemon listens on loopback TCP, where it
// requires a bearer token the suite cannot send, so this proxy on another loopback port adds the
// token and forwards every request (streams included) to the daemon's /mcp untouched.
//
//   bun test/conformance/http-server.ts DAEMON_URL TOKEN      prints `listening PORT` on stderr
//
// Ends on SIGINT/SIGTERM, or when stdin (a pipe from run.ts) closes.

import { serveUntilParentGoes } from "../../fixtures/servers/serve-until-parent-goes.ts";

const [daemonUrl, token] = process.argv.slice(2);
if (!daemonUrl || !token) throw new Error("usage: bun test/conformance/http-server.ts DAEMON_URL TOKEN");
const upstream = new URL(daemonUrl);

const http = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0, // a GET stream and a long run are held open
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname !== "/mcp") return new Response("not found: use /mcp\n", { status: 404 });
    const headers = new Headers(req.headers);
    // Host and Origin pass through as the suite sent them: the daemon's DNS-rebinding check judges them
    headers.set("authorization", `Bearer ${token}`);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    return fetch(new URL("/mcp" + url.search, upstream), { method: req.method, headers, body, signal: req.signal, redirect: "manual" });
  },
});

serveUntilParentGoes(http);
