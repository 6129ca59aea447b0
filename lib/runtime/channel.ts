// The run's channel to the host: the handoff (the run's details, on the runtime's fd 3) and the
// per-run unix socket the launcher's tool calls go over, each answered with one line (host →
// launcher, launcher/wire.ts HostAnswer).

import { chmodSync, openSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "bun";
import type { FeatureOp, Handoff, WorkspaceOp } from "../../launcher/wire.ts";
import { SocketWriteQueue } from "../util/socket-write-queue.ts";
import type { CallAnswer, RunHandlers, WorkspaceData } from "./run-spec.ts";

/**
 * The answer to call frame `id`, as one line; byte for byte JSON.stringify({ id, ...answer }) + "\n",
 * made without that copy of the answer for a call that succeeded (every call of a script's loop;
 * docs/decisions/0011).
 */
export function answerLine(id: number, a: CallAnswer): string {
  // undefined: a value JSON has no text for (stringify then leaves the key out), said the long way
  const value = a.ok ? JSON.stringify(a.value) : undefined;
  return value !== undefined ? `{"id":${id},"ok":true,"value":${value}}\n` : JSON.stringify({ id, ...a }) + "\n";
}

export interface Channel {
  call(id: number, server: string, tool: string, args: Record<string, unknown>): void;
  /** a resources.read / prompts.get frame: numbered, refused and answered as a call frame is */
  feature(id: number, op: FeatureOp, server: string, target: string, args: Record<string, string>): void;
  /** an artifact's close frame: numbered, refused and answered as a call frame is */
  artifactClose(id: number, aid: number): void;
  /** a workspace frame: numbered, refused and answered as a call frame is */
  workspace(id: number, op: WorkspaceOp, name: string, data: WorkspaceData): void;
  close(): void;
}

/**
 * The run, written to a 0600 file in the 0700 socket directory, opened read-write and deleted at
 * once: the launcher receives the open descriptor as fd 3 (HANDOFF_FD), reads it and empties it. Nothing
 * of it is in the environment, which /proc/PID/environ shows for the whole life of a process
 * (decision 0007). Read-write, so that the launcher may empty it through a second opening (Deno).
 */
export function handoffFile(path: string, handoff: Handoff, unlink: boolean): number {
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify(handoff), { mode: 0o600, flag: "wx" });
  try {
    return openSync(path, "r+");
  } finally {
    // kept for a sandboxed Deno, which is given its path (read only), until its launcher connects
    if (unlink) rmSync(path, { force: true });
  }
}

/**
 * The per-run unix socket; only a client that first sends the run's token gets answers. Each id is
 * answered once: the launcher numbers its calls 1, 2, 3…, so a call frame whose id is not above every
 * id seen before is a forgery or a replay; it is refused (not run, not answered) and said as an error log.
 */
export function openChannel(path: string, token: string, h: RunHandlers, onAuthed?: () => void): Channel {
  rmSync(path, { force: true });
  type Conn = { buf: string; ok: boolean; out: SocketWriteQueue };
  let authed: Socket<Conn> | undefined;
  // answers that are ready before the launcher has connected wait here, in order
  const early: string[] = [];
  const send = (line: string) => (authed ? authed.data.out.write(line) : early.push(line));
  const server = Bun.listen<Conn>({
    unix: path,
    socket: {
      open(s) {
        s.data = { buf: "", ok: false, out: new SocketWriteQueue(s) };
      },
      data(s, chunk) {
        if (s.data.ok) return;
        s.data.buf += chunk.toString();
        const nl = s.data.buf.indexOf("\n");
        if (nl < 0) return;
        if (s.data.buf.slice(0, nl) !== token || authed) return void s.end();
        s.data.ok = true;
        authed = s;
        onAuthed?.();
        for (const line of early.splice(0)) s.data.out.write(line);
      },
      drain(s) {
        s.data.out.drain();
      },
    },
  });
  chmodSync(path, 0o600);
  let lastId = 0;
  /** the answer callback of frame `id`, once; undefined (and said) for an id that is not above every id seen before */
  const answerFor = (id: number, what: string): ((a: CallAnswer) => void) | undefined => {
    if (id <= lastId) {
      const message =
        `mcpx: refused a call frame for ${what} with id ${id}: ids are answered once, in ` +
        `increasing order (the last was ${lastId}); a frame the launcher did not write is never run`;
      h.frame({ type: "log", level: "error", message });
      return undefined;
    }
    lastId = id;
    let sent = false;
    return (a: CallAnswer) => {
      if (sent) return;
      sent = true;
      send(answerLine(id, a));
    };
  };
  const failed = (answer: (a: CallAnswer) => void) => (err: { message?: unknown } | undefined) =>
    answer({ ok: false, error: { name: "Error", message: String(err?.message ?? err) } });
  return {
    call(id, srv, tool, args) {
      const answer = answerFor(id, `${srv}.${tool}`);
      if (answer) h.call(srv, tool, args, answer).then(answer, failed(answer));
    },
    feature(id, op, srv, target, args) {
      const answer = answerFor(id, `${op} ${srv} ${JSON.stringify(target)}`);
      if (answer) h.feature(op, srv, target, args).then(answer, failed(answer));
    },
    artifactClose(id, aid) {
      const answer = answerFor(id, `the close of artifact ${aid}`);
      if (answer) answer(h.artifact.close(aid));
    },
    workspace(id, op, name, data) {
      const answer = answerFor(id, `workspace.${op} ${JSON.stringify(name)}`);
      if (answer) answer(h.workspace(op, name, data));
    },
    close() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}
