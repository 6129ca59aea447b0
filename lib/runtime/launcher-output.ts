// What a launcher writes on its ordered stream (fd 1, or the QuickJS sandbox's write), turned into the
// run's frames, its calls and its one result or error marker: one reader for every engine, so a run's
// frames are the same whichever engine ran it.

import { traceOnce } from "../util/trace.ts";
import type { Channel } from "./channel.ts";
import type { RunHandlers, SerializedError } from "./run-spec.ts";
import { StdoutSplitter } from "./stdout-splitter.ts";
import { latin1Bytes, latin1ToUtf8, Utf8Pieces, type StdoutPiece } from "./stdout-bytes.ts";

export type Wire = typeof import("../../launcher/wire.ts");

type Marker = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export interface LauncherOutput {
  /** more of the stream, as latin-1 text (a char per byte), so that stdout's bytes survive the splitter (stdout-bytes.ts) */
  push(latin1: string): void;
  /** the stream ended: what is left is stdout */
  end(): void;
  /** the launcher's result or error marker, once it wrote one */
  marker(): Marker | undefined;
}

export function launcherOutput(h: RunHandlers, wire: Wire, nonce: string, channel: Channel): LauncherOutput {
  const firstOutput = traceOnce();
  const firstFrame = traceOnce();
  let marker: Marker | undefined;
  const splitter = new StdoutSplitter(nonce, latin1ToUtf8);
  const text = new Utf8Pieces();
  const stdout = (p: StdoutPiece | undefined) => p && h.frame({ type: "stdout", ...p });
  const onPiece = (p: ReturnType<StdoutSplitter["push"]>[number]) => {
    firstOutput("child ready (first output)");
    if (p.kind === "text") return stdout(text.push(latin1Bytes(p.data)));
    firstFrame("first frame");
    stdout(text.flush()); // a character cut short by a frame will never be completed
    const m = wire.decodeLauncherMessage(p.body);
    switch (m?.t) {
      case undefined:
        return; // a frame type this mcpx does not know: frame types are an open set
      case "malformed":
        return h.frame({ type: "log", level: "error", message: `mcpx: a malformed frame from the launcher was dropped (${m.why})` });
      case "stderr":
        return h.frame({ type: "stderr", data: m.d });
      case "log":
        return h.frame({ type: "log", level: m.level, message: m.msg });
      case "emit":
        return h.frame({ type: "emit", value: m.v });
      case "call":
        return channel.call(m.id, m.server, m.tool, m.args);
      case "feature":
        return channel.feature(m.id, m.op, m.server, m.target, m.args);
      case "artifact.open":
        return h.artifact.open(m.aid, m.name, m.mime);
      case "artifact.data":
        return h.artifact.data(m.aid, m);
      case "artifact.close":
        return channel.artifactClose(m.id, m.aid);
      case "workspace":
        return channel.workspace(m.id, m.op, m.name, { text: m.text, b64: m.b64, append: m.append });
      case "result":
        marker = { ok: true, value: m.u ? undefined : m.v };
        return;
      case "error":
        marker = { ok: false, error: m.e };
        return;
    }
  };
  return {
    push: (s) => splitter.push(s).forEach(onPiece),
    end() {
      splitter.end().forEach(onPiece);
      stdout(text.flush());
    },
    marker: () => marker,
  };
}
