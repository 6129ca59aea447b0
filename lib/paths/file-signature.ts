// What a path holds, as far as something remembered from it cares: which file it is and when it last
// changed (nanoseconds, the inode's change time included, so a same-size rewrite within one mtime tick
// or a file swapped in by rename is still seen), or that nothing is there. Two equal signatures mean
// the path still reads as it did.

import { statSync } from "node:fs";

/** null: nothing at the path */
export type FileSignature = string | null;

export function fileSignature(path: string): FileSignature {
  try {
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
  } catch (err) {
    return `unreadable:${(err as NodeJS.ErrnoException).code ?? "?"}`;
  }
}
