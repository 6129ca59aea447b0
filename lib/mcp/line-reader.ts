// A stdio stream cut into lines, one JSON-RPC message each: a server's stdout (lib/mcp/stdio-transport.ts)
// and `mcpx serve`'s stdin (lib/mcpserver/stdio-transport.ts). Only each new chunk is searched for a
// newline, so a message of many MB arriving in 64 KB pieces costs one pass.

/** a line as Buffer#toString("utf8") read it: invalid bytes become U+FFFD, and a BOM is kept (JSON.parse refuses it, as before) */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Buffer#toString("utf8")'s own decoder, called on a range of the chunk's bytes: a line read whole
 * from one chunk needs no view of it (a subarray made the engine materialise the chunk's ArrayBuffer
 * for every answer, as reading `chunk.buffer` did)
 */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice(this: Uint8Array, start: number, end: number): string }).utf8Slice;

/** how many bytes of each end of a line over the limit are kept: enough for a JSON-RPC id, written first or last */
export const LONG_LINE_EDGE = 4096;

/** a line over the limit, skipped: its length and its two ends (each at most LONG_LINE_EDGE bytes, decoded) */
export interface LongLine {
  bytes: number;
  head: string;
  tail: string;
}

export class LineReader {
  /** the start of a line still arriving, copied (a socket may reuse the chunk's memory once its handler returns) */
  private parts: Uint8Array[] = [];
  private size = 0;
  private over = false;
  /** the line over the limit being skipped (overLimit `{skip}`) */
  private long: Edges | undefined;

  /**
   * @param max the longest line, in bytes (mcp.maxMessage)
   * @param overLimit what a longer line does. A function: it is called, once, and then nothing more is
   *   read (a server that wrote it is broken). `{skip}`: the line is not kept but skipped, handed to
   *   skip once it has ended, and the next line is read (a client that sent it can be answered).
   */
  constructor(
    private readonly max: number,
    private readonly line: (text: string) => void,
    private readonly overLimit: (() => void) | { skip(long: LongLine): void },
  ) {}

  /** false once a line went over the limit (unless skipped): the caller stops reading */
  push(chunk: Uint8Array): boolean {
    if (this.over) return false;
    let at = 0;
    if (this.long) {
      const nl = chunk.indexOf(10);
      this.long.see(nl < 0 ? chunk : chunk.subarray(0, nl));
      if (nl < 0) return true;
      this.endLong();
      at = nl + 1;
    }
    for (let nl = chunk.indexOf(10, at); nl >= 0; nl = chunk.indexOf(10, at)) {
      if (this.size + nl - at > this.max) {
        if (!this.startLong(chunk.subarray(at, nl))) return false;
        this.endLong();
        at = nl + 1;
        continue;
      }
      const text = this.parts.length ? utf8.decode(Buffer.concat([...this.parts, chunk.subarray(at, nl)])) : utf8Slice.call(chunk, at, nl);
      this.parts = [];
      this.size = 0;
      at = nl + 1;
      this.line(text);
    }
    if (at === chunk.byteLength) return true;
    this.size += chunk.byteLength - at;
    if (this.size > this.max) return this.startLong(chunk.subarray(at));
    this.parts.push(chunk.slice(at));
    return true;
  }

  /** the line so far and `more` of it are over the limit: skip it (keeping its ends), or stop reading */
  private startLong(more: Uint8Array): boolean {
    if (typeof this.overLimit === "function") return this.tooLong(this.overLimit);
    const long = new Edges();
    for (const p of this.parts) long.see(p);
    long.see(more);
    this.parts = [];
    this.size = 0;
    this.long = long;
    return true;
  }

  private endLong(): void {
    const long = this.long!;
    this.long = undefined;
    (this.overLimit as { skip(long: LongLine): void }).skip({ bytes: long.bytes, head: utf8.decode(long.head), tail: utf8.decode(long.tail) });
  }

  private tooLong(overLimit: () => void): false {
    this.over = true;
    this.parts = [];
    overLimit();
    return false;
  }
}

/** a skipped line's length and its first and last LONG_LINE_EDGE bytes, without holding the rest */
class Edges {
  bytes = 0;
  head: Uint8Array = new Uint8Array(0);
  tail: Uint8Array = new Uint8Array(0);

  see(piece: Uint8Array): void {
    this.bytes += piece.byteLength;
    if (this.head.byteLength < LONG_LINE_EDGE) this.head = Buffer.concat([this.head, piece.subarray(0, LONG_LINE_EDGE - this.head.byteLength)]);
    this.tail =
      piece.byteLength >= LONG_LINE_EDGE ? piece.slice(piece.byteLength - LONG_LINE_EDGE) : Buffer.concat([this.tail, piece]).subarray(-LONG_LINE_EDGE);
  }
}
