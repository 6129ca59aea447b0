// The script's stdout is bytes, not text: a program that writes a PNG or a latin-1 file to stdout
// (`mcpx exec … > f`) must get exactly those bytes out of the CLI. Frames stay text, so each piece
// of stdout becomes `data` (UTF-8, with U+FFFD where the bytes are not UTF-8) and, only when that
// lost something, `bytes` (the exact bytes, base64), which every text-mode writer prefers.
//
// The host reads the launcher's fd 1 as latin-1 text (one char per byte, lossless) so the frame
// splitter can cut it without decoding; this turns the pieces back into bytes and cuts the plain
// text at UTF-8 character boundaries, so no character is split between two pieces.

const decoder = new TextDecoder(); // not fatal: invalid bytes become U+FFFD in `data`

/** latin-1 text (from the splitter) back to the bytes it stands for */
export function latin1Bytes(text: string): Uint8Array {
  return Buffer.from(text, "latin1");
}

// Buffer's latin1 is ISO-8859-1, a char per byte; TextDecoder's "latin1" is windows-1252 (0x80 → €).
// Called on the bytes as they are: reading a chunk's `.buffer` to wrap it in a Buffer made the engine
// materialise an ArrayBuffer for every chunk read, a cost the host's profile showed on every frame.
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

/** bytes read from fd 1 as latin-1 text, a char per byte */
export function latin1Text(bytes: Uint8Array): string {
  return latin1Slice.call(bytes, 0, bytes.byteLength);
}

/** a char above U+007F: only then does latin-1 text differ from the UTF-8 it was read from */
const NOT_ASCII = /[^\x00-\x7f]/;

/** a frame's JSON, read as latin-1 by the splitter, as the UTF-8 text the launcher wrote */
export function latin1ToUtf8(text: string): string {
  // most frames are ASCII (JSON.stringify escapes nothing above it, but most scripts send none), and ASCII reads the same either way
  if (!NOT_ASCII.test(text)) return text;
  return Buffer.from(text, "latin1").toString("utf8");
}

/** how many bytes at the end of `b` start a UTF-8 character that is not complete yet (0–3) */
export function incompleteTail(b: Uint8Array): number {
  // look back over at most 3 continuation bytes for the lead byte of the last character
  for (let back = 1; back <= Math.min(4, b.length); back++) {
    const byte = b[b.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back && need <= 4 && byte < 0xf8 ? back : 0;
  }
  return 0;
}

export interface StdoutPiece {
  data: string;
  /** base64 of the exact bytes, only when `data` could not hold them */
  bytes?: string;
}

/** one text stream's pieces, cut at character boundaries; `flush` at a frame and at the end */
export class Utf8Pieces {
  private held: Uint8Array = new Uint8Array(0);

  push(bytes: Uint8Array): StdoutPiece | undefined {
    const all = this.held.length ? concat(this.held, bytes) : bytes;
    const keep = incompleteTail(all);
    this.held = all.slice(all.length - keep);
    return piece(all.subarray(0, all.length - keep));
  }

  /** what is held (an incomplete character that will never be completed) goes out as it is */
  flush(): StdoutPiece | undefined {
    // called at every frame: most have nothing held, and then nothing is made
    if (this.held.length === 0) return undefined;
    const rest = this.held;
    this.held = new Uint8Array(0);
    return piece(rest);
  }
}

function piece(b: Uint8Array): StdoutPiece | undefined {
  if (b.length === 0) return undefined;
  const data = decoder.decode(b);
  // lossless exactly when re-encoding gives the same bytes (U+FFFD written by the script is kept)
  const lossless = !data.includes("\uFFFD") || Buffer.from(data, "utf8").equals(b);
  return lossless ? { data } : { data, bytes: Buffer.from(b).toString("base64") };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
