// One artifact's bytes on their way into the cache's content-addressed store (`artifacts/SHA256`):
// written to a private file beside the store and hashed as they come, then renamed to their
// sha256. Every writer renames its own file into place, even over the same bytes, so the daemon,
// which removes a file it wrote once nothing it serves holds those bytes, never removes one a local
// run or a --remote client wrote since (lib/daemon/kept-artifacts.ts). Used by the run's artifacts
// (run-artifacts.ts) and by a --remote client storing what it fetched (lib/exec/remote-artifacts.ts).

import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../util/random-bytes.ts";

export interface ContentWriter {
  write(bytes: Uint8Array): void;
  /** closes the file: its sha256 and size, and `keep` to rename it into the store (`made`: no file held these bytes before) */
  done(): { sha256: string; size: number; keep(): { path: string; made: boolean } };
  /** closes and removes the file, whatever state it is in */
  abort(): void;
}

export function contentWriter(dir: string): ContentWriter {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.tmp-${randomHex(6)}`);
  let fd: number | undefined = openSync(tmp, "wx", 0o600);
  const hash = new Bun.CryptoHasher("sha256");
  let size = 0;
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  return {
    write(bytes) {
      hash.update(bytes);
      size += bytes.length;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd!, bytes, off);
    },
    done() {
      close();
      const sha256 = hash.digest("hex");
      return {
        sha256,
        size,
        keep() {
          const path = join(dir, sha256);
          const made = !existsSync(path);
          renameSync(tmp, path);
          return { path, made };
        },
      };
    },
    abort() {
      close();
      rmSync(tmp, { force: true });
    },
  };
}
