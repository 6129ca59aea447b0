// mcpx doctor: what a new user's first hour runs into, looked at in one go (lib/doctor/checks.ts),
// one line each with its fix; exit 1 when a row fails. A config that does not load is itself a
// failed row, and the checks that need no config (runtimes, /proc, directories) still run.

import { McpxError } from "../lib/errors/mcpx-error.ts";
import { configChecks, dirChecks, procCheck, runtimeChecks, serverChecks, type Check } from "../lib/doctor/checks.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openSession, type Session } from "../lib/session/session.ts";
import { out } from "../lib/util/fd-write.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "Print JSON: {ok, checks: [{area, subject, status, detail, fix}]}" },
};

const MARK: Record<Check["status"], string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

export default defineCommand({
  meta: { name: "doctor", description: COMMAND_DESCRIPTIONS.doctor },
  args: cittyArgs("doctor", OWN),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("doctor", rawArgs, OWN);
    if (parsed.positionals.length || parsed.rest.length) throw new UsageError("usage: mcpx doctor [--json]");
    const checks: Check[] = [];
    let session: Session | undefined;
    try {
      // the warnings a session says are rows here
      session = openSession({
        cwd: process.cwd(),
        env: process.env,
        configFlag: parsed.own.config as string | undefined,
        flags: parsed.settings,
        trustWarnings: false,
      });
    } catch (e) {
      if (!(e instanceof McpxError)) throw e;
      checks.push({
        area: "config",
        subject: "config",
        status: "fail",
        detail: e.message,
        fix: "fix what the message names; every other command stops there too",
      });
    }
    if (session) checks.push(...configChecks(session));
    checks.push(...runtimeChecks(session), procCheck(), ...dirChecks(process.env));
    if (session) checks.push(...(await serverChecks(session)));
    const ok = checks.every((c) => c.status !== "fail");
    if (parsed.own.json) out(JSON.stringify({ ok, checks }, null, 2) + "\n");
    else {
      const lines = checks.map((c) => `${MARK[c.status]}  ${c.area} ${c.subject}: ${oneLine(c.detail)}${c.fix ? ` (fix: ${c.fix})` : ""}`);
      const failed = checks.filter((c) => c.status === "fail").length;
      out(`${lines.join("\n")}\n${failed ? `${failed} problem${failed === 1 ? "" : "s"} found` : "no problem found"}\n`);
    }
    if (!ok) process.exitCode = 1;
  },
});

/** a row is one line: a server's quoted stderr may hold several */
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " | ");
