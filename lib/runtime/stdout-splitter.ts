// Splits the launcher's fd 1 into plain stdout text and frames. A frame is RS + nonce + JSON + "\n"
// (JSON never contains a raw newline). Plain text is passed on as soon as it arrives, except a tail
// that could be the start of a marker cut by a chunk boundary, which waits for the next chunk.

export type Piece = { kind: "text"; data: string } | { kind: "frame"; body: Record<string, unknown> };

export class StdoutSplitter {
  private readonly marker: string;
  /** the end of the text seen so far when it could be the start of a marker cut by a chunk boundary */
  private carry = "";
  /** the JSON of a frame still arriving, in the pieces it came in (joined once, at its newline) */
  private frame: string[] | undefined;

  /** @param frameText turns a frame's JSON as read into text for JSON.parse (the host reads fd 1 as latin-1) */
  constructor(
    nonce: string,
    private readonly frameText: (json: string) => string = (json) => json,
  ) {
    this.marker = "\x1e" + nonce;
  }

  // Each byte is scanned once: a frame of many MB arriving in 64 KB chunks used to rescan everything
  // buffered so far for its newline at every chunk.
  push(chunk: string): Piece[] {
    const out: Piece[] = [];
    const text = this.carry + chunk;
    this.carry = "";
    let i = 0;
    if (this.frame) {
      const nl = text.indexOf("\n");
      if (nl < 0) {
        this.frame.push(text);
        return out;
      }
      this.frame.push(text.slice(0, nl));
      out.push(this.parse(this.frame.join("")));
      this.frame = undefined;
      i = nl + 1;
    }
    for (;;) {
      const at = text.indexOf(this.marker, i);
      if (at < 0) break;
      if (at > i) out.push({ kind: "text", data: text.slice(i, at) });
      const nl = text.indexOf("\n", at + this.marker.length);
      if (nl < 0) {
        this.frame = [text.slice(at + this.marker.length)];
        return out;
      }
      out.push(this.parse(text.slice(at + this.marker.length, nl)));
      i = nl + 1;
    }
    const keep = partialMarkerTail(text, this.marker, i);
    if (text.length - keep > i) out.push({ kind: "text", data: text.slice(i, text.length - keep) });
    this.carry = text.slice(text.length - keep);
    return out;
  }

  /** at end of stream: whatever is left is text */
  end(): Piece[] {
    const rest = (this.frame ? this.marker + this.frame.join("") : "") + this.carry;
    this.frame = undefined;
    this.carry = "";
    return rest ? [{ kind: "text", data: rest }] : [];
  }

  /** only an object is a frame; anything else that merely looks like one is the script's text */
  private parse(json: string): Piece {
    let body: unknown;
    try {
      body = JSON.parse(this.frameText(json));
    } catch {
      body = undefined;
    }
    if (body && typeof body === "object" && !Array.isArray(body)) return { kind: "frame", body: body as Record<string, unknown> };
    return { kind: "text", data: this.marker + json + "\n" };
  }
}

/** length of the longest suffix of `text` (from `from` on) that is a proper prefix of `marker` */
function partialMarkerTail(text: string, marker: string, from: number): number {
  for (let n = Math.min(marker.length - 1, text.length - from); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}
