// The host runtime's services on Deno (sys.ts), through Deno.*.

import { g } from "./globals.ts";
import { formatWith, hostGone, isBrokenPipe, lineSplitter, type Sys } from "./sys.ts";
import { HANDOFF_FD } from "./wire.ts";

export function denoSys(): Sys {
  const Deno = g.Deno;
  const enc = new TextEncoder();
  const encode = enc.encode.bind(enc);
  const writeSync = Deno.stdout.writeSync.bind(Deno.stdout);
  return {
    async takeHandoff() {
      // a sandboxed Deno may not open /dev/fd/N: it is given the file's path instead, which it may
      // only read; the host deletes it as soon as this launcher connects with the token inside
      const given = Deno.args[0] as string | undefined;
      if (given) return Deno.readTextFileSync(given);
      // Deno 2 cannot close a descriptor it did not open: the file is emptied instead, through a
      // second opening of the same (already deleted) file
      const path = `/dev/fd/${HANDOFF_FD}`;
      const text = Deno.readTextFileSync(path);
      Deno.openSync(path, { write: true, truncate: true }).close();
      return text;
    },
    write(text) {
      let buf = typeof text === "string" ? encode(text) : text;
      try {
        while (buf.length > 0) buf = buf.subarray(writeSync(buf));
      } catch (err) {
        if (isBrokenPipe(err)) hostGone();
        throw err;
      }
    },
    format: (args) => formatWith((v) => Deno.inspect(v, { colors: false }), args),
    async connect(path, onLine, onError) {
      const conn = await Deno.connect({ transport: "unix", path });
      const feed = lineSplitter(onLine);
      void (async () => {
        try {
          for await (const chunk of conn.readable.pipeThrough(new TextDecoderStream())) feed(chunk);
          onError(new Error("closed"));
        } catch (e) {
          onError(e);
        }
      })();
      // conn.write may take part of a buffer: writes are chained so each one finishes in order
      let writing: Promise<void> = Promise.resolve();
      const writeAll = async (b: Uint8Array) => {
        while (b.length > 0) b = b.subarray(await conn.write(b));
      };
      return {
        write: (t) => {
          const b = encode(t);
          writing = writing.then(() => writeAll(b)).catch(onError);
        },
        end: () => {
          try {
            conn.close();
          } catch {
            // already closed
          }
        },
        ref: () => conn.ref(),
        unref: () => conn.unref(),
      };
    },
  };
}
