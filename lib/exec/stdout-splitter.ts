// Splits the launcher's fd 1 into plain stdout text and frames. A frame is RS + nonce + JSON + "\n"
// (JSON never contains a raw newline). Plain text is passed on as soon as it arrives, except a tail
// that could be the start of a marker cut by a chunk boundary, which waits for the next chunk.

export type Piece = { kind: "text"; data: string } | { kind: "frame"; body: Record<string, unknown> };

export class StdoutSplitter {
  private buf = "";
  private readonly marker: string;

  constructor(nonce: string) {
    this.marker = "\x1e" + nonce;
  }

  push(chunk: string): Piece[] {
    this.buf += chunk;
    const out: Piece[] = [];
    for (;;) {
      const at = this.buf.indexOf(this.marker);
      if (at < 0) break;
      const nl = this.buf.indexOf("\n", at);
      if (nl < 0) {
        // a frame still arriving: emit the text before it, keep the frame
        if (at > 0) out.push({ kind: "text", data: this.buf.slice(0, at) });
        this.buf = this.buf.slice(at);
        return out;
      }
      if (at > 0) out.push({ kind: "text", data: this.buf.slice(0, at) });
      const json = this.buf.slice(at + this.marker.length, nl);
      this.buf = this.buf.slice(nl + 1);
      let body: unknown;
      try {
        body = JSON.parse(json);
      } catch {
        body = undefined;
      }
      // only an object is a frame; anything else that merely looks like one is the script's text
      if (body && typeof body === "object" && !Array.isArray(body)) out.push({ kind: "frame", body: body as Record<string, unknown> });
      else out.push({ kind: "text", data: this.marker + json + "\n" });
    }
    const keep = partialMarkerTail(this.buf, this.marker);
    if (this.buf.length > keep) out.push({ kind: "text", data: this.buf.slice(0, this.buf.length - keep) });
    this.buf = this.buf.slice(this.buf.length - keep);
    return out;
  }

  /** at end of stream: whatever is left is text */
  end(): Piece[] {
    const rest = this.buf;
    this.buf = "";
    return rest ? [{ kind: "text", data: rest }] : [];
  }
}

/** length of the longest suffix of `text` that is a proper prefix of `marker` */
function partialMarkerTail(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}
