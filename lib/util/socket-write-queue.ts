// Writes to a Bun socket without losing bytes. Bun sockets do not buffer: `write()` takes what the
// kernel accepts now and returns that count, and the rest is the caller's to send on `drain`.
// Ignoring the count hung every run whose answers in flight passed what the kernel's buffer takes.

/** the part of a Bun socket this needs: write returns the bytes taken, -1 once closed */
export interface WritableSocket {
  write(data: string | Uint8Array): number;
}

const encoder = new TextEncoder();

/** one per socket: write() in order, and call drain() from the socket's `drain` handler */
export class SocketWriteQueue {
  private readonly pending: Uint8Array[] = [];
  private head = 0;

  constructor(private readonly socket: WritableSocket) {}

  /** false when the socket is closed (there is no one left to read it) */
  write(data: string | Uint8Array): boolean {
    // anything already waiting goes first, or the stream would be reordered
    if (this.head < this.pending.length) {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      if (bytes.byteLength > 0) this.pending.push(bytes);
      return true;
    }
    // a string is handed over as it is (the socket encodes it as UTF-8): most answers are taken whole,
    // and only a part the socket did not take is encoded, to keep its bytes for drain
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    if (size === 0) return true;
    const taken = this.socket.write(data);
    if (taken < 0) return false;
    if (taken < size) this.pending.push((typeof data === "string" ? encoder.encode(data) : data).subarray(taken));
    return true;
  }

  /** sends what is waiting, as far as the socket takes it */
  drain(): void {
    while (this.head < this.pending.length) {
      const bytes = this.pending[this.head]!;
      const taken = this.socket.write(bytes);
      if (taken < 0) {
        this.clear();
        return;
      }
      if (taken < bytes.byteLength) {
        this.pending[this.head] = bytes.subarray(taken);
        return;
      }
      this.pending[this.head++] = EMPTY;
    }
    this.clear();
  }

  private clear(): void {
    this.pending.length = 0;
    this.head = 0;
  }
}

const EMPTY = new Uint8Array(0);
