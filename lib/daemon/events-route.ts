// GET /v1/events: the event bus as server-sent events, filtered by kind prefixes, resumable from a
// seq, with the bus's in-band gap when the asked-for seq has left its history.

import type { Handler } from "./context.ts";
import { errorResponse } from "./http.ts";
import { SSE_KEEPALIVE, eventsQuery, sseMessage } from "./sse.ts";

export const eventsRoute: Handler = (req, { deps, url }) => {
  const q = eventsQuery(url, req.headers.get("last-event-id"));
  if (!q.ok) return errorResponse(400, "BAD_REQUEST", q.message);
  const sub = deps.engine.bus.subscribe(q.options);
  const enc = new TextEncoder();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(keepAlive);
    sub.close();
  };
  req.signal.addEventListener("abort", stop);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      // a comment first, so the client has the response (and its headers) before any event
      controller.enqueue(enc.encode(": mcpx events\n\n"));
      keepAlive = setInterval(() => {
        try {
          controller.enqueue(enc.encode(SSE_KEEPALIVE));
        } catch {
          stop();
        }
      }, deps.keepAliveMs);
    },
    async pull(controller) {
      const r = await sub.next();
      if (r.done) {
        stop();
        // the bus closed (daemon shutdown) or the client went: either way the stream ends here
        try {
          controller.close();
        } catch {}
        return;
      }
      controller.enqueue(enc.encode(sseMessage(r.value)));
    },
    cancel: stop,
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" } });
};
