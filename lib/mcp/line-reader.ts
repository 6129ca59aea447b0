// A stdio server's stdout cut into lines, one JSON-RPC message each (stdio-transport.ts). Only each new
// chunk is searched for a newline, so a message of many MB arriving in 64 KB pieces costs one pass.

/** a line as Buffer#toString("utf8") read it: invalid bytes become U+FFFD, and a BOM is kept (JSON.parse refuses it, as before) */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Buffer#toString("utf8")'s own decoder, called on a range of the chunk's bytes: a line read whole
 * from one chunk needs no view of it (a subarray made the engine materialise the chunk's ArrayBuffer
 * for every answer, as reading `chunk.buffer` did)
 */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice(this: Uint8Array, start: number, end: number): string }).utf8Slice;

export class LineReader {
  /** the start of a line still arriving, copied (a socket may reuse the chunk's memory once its handler returns) */
  private parts: Uint8Array[] = [];
  private size = 0;
  private over = false;

  /**
   * @param max the longest line, in bytes (mcp.maxMessage); a longer one is `overLimit`, once, and then nothing more is read
   */
  constructor(
    private readonly max: number,
    private readonly line: (text: string) => void,
    private readonly overLimit: () => void,
  ) {}

  /** false once a line went over the limit: the caller stops reading */
  push(chunk: Uint8Array): boolean {
    if (this.over) return false;
    let at = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, at)) {
      if (this.size + nl - at > this.max) return this.tooLong();
      const text = this.parts.length ? utf8.decode(Buffer.concat([...this.parts, chunk.subarray(at, nl)])) : utf8Slice.call(chunk, at, nl);
      this.parts = [];
      this.size = 0;
      at = nl + 1;
      this.line(text);
    }
    if (at === chunk.byteLength) return true;
    this.size += chunk.byteLength - at;
    if (this.size > this.max) return this.tooLong();
    this.parts.push(chunk.slice(at));
    return true;
  }

  private tooLong(): false {
    this.over = true;
    this.parts = [];
    this.overLimit();
    return false;
  }
}
