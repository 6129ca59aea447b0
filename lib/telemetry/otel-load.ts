// The one door to OpenTelemetry: the taps a command hands openEngine (EngineOptions.taps). The
// configuration is checked first, from the environment alone (otel-config.ts); only when something is
// to be exported is otel-tap.ts imported, and with it the SDK. Unconfigured, a command pays for one
// function call and loads no module of OpenTelemetry (docs/decisions/0027).

import { trace } from "../util/trace.ts";
import { otelConfig } from "./otel-config.ts";
import type { Tap } from "./tap.ts";

/** what of a session this needs (lib/session/session.ts Session has it): a type here, so telemetry does not import the session */
interface TapHost {
  env: Readonly<Record<string, string | undefined>>;
  log(level: "warn" | "debug", message: string, source?: string): void;
}

/** the OpenTelemetry tap, when the standard variables configure one; [] otherwise */
export async function telemetryTaps(session: TapHost): Promise<Tap[]> {
  const cfg = otelConfig(session.env);
  if (!cfg) return [];
  for (const note of cfg.notes) session.log("warn", note, "otel");
  if (!cfg.traces && !cfg.metrics) return [];
  try {
    const { otelTap } = await import("./otel-tap.ts");
    // MCPX_TRACE=1 shows this stage only where OpenTelemetry was loaded: an unconfigured run never shows it
    trace("otel loaded");
    return [await otelTap(cfg, { debug: (m) => session.log("debug", m, "otel") })];
  } catch (e) {
    // telemetry never stops a command: said, and the command runs untraced
    session.log("warn", `OpenTelemetry export is off for this command: it could not be set up: ${(e as Error).message}`, "otel");
    return [];
  }
}
