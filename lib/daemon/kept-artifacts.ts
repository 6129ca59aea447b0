// The artifacts the daemon's runs made, kept in memory so GET /v1/artifacts/ID can serve them
// (artifacts-route.ts): each for daemon.artifactTtl after its run ends, all of them together at most
// daemon.artifactMax bytes, the oldest forgotten first past it. Pure: the clock is injected and
// forgetting is reported to a callback, so the daemon's edge (artifactsFor below) decides what
// happens to the content file, and the unit test passes a month in a millisecond.

import { lstatSync, rmSync } from "node:fs";
import type { Session } from "../session/session.ts";
import { SettingsError } from "../settings/resolve.ts";
import { formatDuration } from "../settings/duration.ts";

/** one artifact a run made, as the daemon serves it */
export interface KeptArtifact {
  id: string;
  /** its content-addressed file in the daemon's cache */
  path: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  /** the clock's time when its run closed it */
  madeAt: number;
}

/** why an artifact is no longer served */
export type Forgotten = "expired" | "evicted";

export type Lookup = { ok: true; artifact: KeptArtifact } | { ok: false; why: "id" | "unknown" | Forgotten; message: string };

export interface KeptArtifactsOptions {
  /** how long after its run ends an artifact is served (daemon.artifactTtl); 0 = until evicted */
  ttlMs: number;
  /** the most the kept artifacts hold together, in bytes (daemon.artifactMax); 0 = no limit */
  maxBytes: number;
  now?: () => number;
  /**
   * told each artifact as it is forgotten, and whether it was the last kept one holding its bytes
   * (its sha256): only then may its content file go
   */
  onForget?: (a: KeptArtifact, why: Forgotten, lastOfItsBytes: boolean) => void;
}

/** what one run's side holds: keep each artifact as it closes, and say when the run has ended (the ttl counts from then) */
export interface RunKeeper {
  keep(a: Omit<KeptArtifact, "madeAt">): void;
  ended(): void;
}

/**
 * How many forgotten ids are remembered, so a late GET says "expired" or "evicted" rather than
 * "unknown". Each is an id and a word; past it the oldest are dropped and such a GET says "unknown",
 * which is still true. Raise it only if a workload forgets more artifacts than this between a
 * frame and its fetch.
 */
const FORGOTTEN_REMEMBERED = 4096;

/** an artifact's id as newRunArtifacts makes it: the run's UUID, a dot, its number in the run from 1 */
const ARTIFACT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[1-9]\d{0,8}$/;

interface Entry {
  artifact: KeptArtifact;
  run: { endedAt?: number };
}

export class KeptArtifacts {
  /** in the order made, so the first is the oldest */
  private readonly kept = new Map<string, Entry>();
  private readonly gone = new Map<string, Forgotten>();
  /** how many kept artifacts hold each sha256 */
  private readonly holders = new Map<string, number>();
  private total = 0;
  private readonly now: () => number;

  constructor(private readonly opts: KeptArtifactsOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** the bytes the kept artifacts hold together */
  get bytes(): number {
    return this.total;
  }

  /** the ids served now, oldest first (after forgetting what expired) */
  ids(): string[] {
    this.sweep();
    return [...this.kept.keys()];
  }

  run(): RunKeeper {
    const run: Entry["run"] = {};
    return {
      keep: (a) => {
        this.sweep();
        const artifact: KeptArtifact = { ...a, madeAt: this.now() };
        this.kept.set(a.id, { artifact, run });
        this.holders.set(a.sha256, (this.holders.get(a.sha256) ?? 0) + 1);
        this.total += a.size;
        this.evict();
      },
      ended: () => {
        run.endedAt ??= this.now();
        this.sweep();
      },
    };
  }

  /** the artifact an id names, or why there is none */
  get(id: string): Lookup {
    if (!ARTIFACT_ID.test(id)) {
      return { ok: false, why: "id", message: `artifact id ${JSON.stringify(id)} is not one: an id is RUNID.N, as an artifact frame's id gives it` };
    }
    this.sweep();
    const entry = this.kept.get(id);
    if (entry) return { ok: true, artifact: entry.artifact };
    const gone = this.gone.get(id);
    if (gone === "expired") {
      return {
        ok: false,
        why: gone,
        message:
          `artifact ${id} expired: the daemon serves an artifact for daemon.artifactTtl (${formatDuration(this.opts.ttlMs)}) ` +
          "after its run ends; fetch it sooner, or raise daemon.artifactTtl where the daemon runs",
      };
    }
    if (gone === "evicted") {
      return {
        ok: false,
        why: gone,
        message:
          `artifact ${id} was forgotten: the artifacts the daemon kept passed daemon.artifactMax ` +
          `(${this.opts.maxBytes / MiB} MiB) and the oldest go first; fetch it sooner, or raise daemon.artifactMax where the daemon runs`,
      };
    }
    return {
      ok: false,
      why: "unknown",
      message: `no artifact ${id} on this daemon: none of its runs made it, or the daemon restarted since (it keeps them in memory only)`,
    };
  }

  /** forgets every artifact whose run ended at least ttl ago, oldest first */
  private sweep(): void {
    if (this.opts.ttlMs <= 0) return;
    const now = this.now();
    for (const [id, e] of this.kept) {
      if (e.run.endedAt !== undefined && now - e.run.endedAt >= this.opts.ttlMs) this.forget(id, e, "expired");
    }
  }

  /** forgets the oldest until the rest fit in maxBytes (the newest too, when it alone does not) */
  private evict(): void {
    if (this.opts.maxBytes <= 0) return;
    for (const [id, e] of this.kept) {
      if (this.total <= this.opts.maxBytes) return;
      this.forget(id, e, "evicted");
    }
  }

  private forget(id: string, e: Entry, why: Forgotten): void {
    this.kept.delete(id);
    this.total -= e.artifact.size;
    const left = (this.holders.get(e.artifact.sha256) ?? 1) - 1;
    if (left > 0) this.holders.set(e.artifact.sha256, left);
    else this.holders.delete(e.artifact.sha256);
    this.gone.set(id, why);
    if (this.gone.size > FORGOTTEN_REMEMBERED) this.gone.delete(this.gone.keys().next().value!);
    this.opts.onForget?.(e.artifact, why, left === 0);
  }
}

const MiB = 1024 * 1024;

export interface DaemonArtifacts {
  kept: KeptArtifacts;
  /** one of the daemon's runs wrote this content file (no file held its bytes before): it may go when forgotten */
  written(path: string): void;
}

/**
 * The daemon's kept artifacts, bounded by its daemon.artifactTtl and daemon.artifactMax. A
 * forgotten artifact's content file is removed only when no kept artifact holds its bytes, one of
 * the daemon's runs wrote it (it was not in the cache before) and it is still the file that run
 * wrote: the cache is the user's, and a local run or a `--remote` client's copy of the same bytes
 * (each writes its own file) keeps its file:// URL working.
 */
export function artifactsFor(session: Session): DaemonArtifacts {
  const ttlMs = session.get("daemon.artifactTtl");
  const maxMb = session.get("daemon.artifactMax");
  if (maxMb < 0) throw new SettingsError(`daemon.artifactMax ${maxMb}: give the most the kept artifacts may hold, in MiB (> 0), or 0 for no limit`);
  /** the files the daemon's runs wrote, by path: the inode each had then */
  const ours = new Map<string, number>();
  const kept = new KeptArtifacts({
    ttlMs,
    maxBytes: maxMb * MiB,
    onForget: (a, _why, last) => {
      if (!last) return;
      const ino = ours.get(a.path);
      ours.delete(a.path);
      try {
        if (ino !== undefined && lstatSync(a.path).ino === ino) rmSync(a.path, { force: true });
      } catch {
        // already gone
      }
    },
  });
  return {
    kept,
    written: (path) => {
      try {
        ours.set(path, lstatSync(path).ino);
      } catch {
        // not there: nothing to remove later
      }
    },
  };
}
