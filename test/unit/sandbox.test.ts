// The sandbox's pure deciders: which runs are sandboxed (a caller may tighten, never loosen), what
// exec.sandboxAllow accepts, the Deno flags a sandboxed run gets, and when a socket directory is not ours.

import { describe, expect, test } from "bun:test";
import { decideSandbox, parseSandboxAllow, type SandboxMode } from "../../lib/exec/door-policy.ts";
import type { Door } from "../../lib/telemetry/tap.ts";
import { channelGrants, denoSandboxArgs, EMPTY_ALLOW } from "../../lib/runtime/sandbox-args.ts";
import { unsafeDirReason } from "../../lib/paths/socket-dir.ts";

const policy = (setting: SandboxMode, door: Door) => ({ setting, origin: "default", door });

describe("decideSandbox", () => {
  test("auto is on for mcpx_exec and off for the CLI and /v1/exec", () => {
    expect(decideSandbox(undefined, policy("auto", "mcp"))).toEqual({ ok: true, on: true });
    expect(decideSandbox(undefined, policy("auto", "cli"))).toEqual({ ok: true, on: false });
    expect(decideSandbox(undefined, policy("auto", "http"))).toEqual({ ok: true, on: false });
  });

  test("a run may ask for on over an unsandboxed server", () => {
    expect(decideSandbox("on", policy("off", "http"))).toEqual({ ok: true, on: true });
    expect(decideSandbox("auto", policy("off", "mcp"))).toEqual({ ok: true, on: true });
  });

  test("a run that asks for off where the server sandboxes is refused, naming the setting and its origin", () => {
    for (const [setting, door] of [
      ["auto", "mcp"],
      ["on", "http"],
      ["on", "cli"],
    ] as const) {
      const d = decideSandbox("off", policy(setting, door));
      expect(d.ok).toBe(false);
      if (!d.ok) expect(d.message).toContain(`exec.sandbox is ${setting} (default)`);
    }
    // auto asked on /v1/exec means off there: still a loosening over a server set to on
    expect(decideSandbox("auto", policy("on", "http")).ok).toBe(false);
  });

  test("off asked where the server is unsandboxed is obeyed", () => {
    expect(decideSandbox("off", policy("off", "mcp"))).toEqual({ ok: true, on: false });
    expect(decideSandbox("off", policy("auto", "cli"))).toEqual({ ok: true, on: false });
  });
});

describe("parseSandboxAllow", () => {
  test("items merge in order", () => {
    expect(
      parseSandboxAllow([
        { value: { read: ["/a"], net: ["example.com:443"] }, origin: "file:/p" },
        { value: { write: ["/b"], env: ["TZ"] }, origin: "env:X" },
      ]),
    ).toEqual({ read: ["/a"], write: ["/b"], net: ["example.com:443"], env: ["TZ"] });
  });

  test("a relative path, a URL as a host, a bad name or an unknown key is an error naming the item, its origin and the key", () => {
    expect(() => parseSandboxAllow([{ value: { read: ["rel"] }, origin: "env:X" }])).toThrow(
      'exec.sandboxAllow[0] (env:X) key read: "rel" is not an absolute path',
    );
    expect(() => parseSandboxAllow([{ value: { net: ["https://x.com"] }, origin: "env:X" }])).toThrow("key net");
    expect(() => parseSandboxAllow([{ value: { env: ["A-B"] }, origin: "env:X" }])).toThrow("key env");
    expect(() => parseSandboxAllow([{ value: { hosts: ["x"] }, origin: "env:X" }])).toThrow("unknown key: an item is an object with read");
    expect(() => parseSandboxAllow([{ value: { read: "/a" }, origin: "env:X" }])).toThrow("key read: expected Array");
  });
});

describe("denoSandboxArgs", () => {
  const channel = channelGrants({ sock: "/run/x/abc.sock", handoff: "/run/x/abc.run" });

  test("grants the run's files and the channel (its socket; the handoff file read only) only, no variable, never prompts, and denies remote imports", () => {
    const args = denoSandboxArgs({ files: ["/c/launcher.ts", "/c/rt.mjs", "/c/snippet.ts"], channel, callerEnv: [], allow: EMPTY_ALLOW, autoInstall: false });
    expect(args).toEqual([
      "--no-prompt",
      "--allow-read=/c/launcher.ts,/c/rt.mjs,/c/snippet.ts,/run/x/abc.sock,/run/x/abc.run",
      "--allow-write=/run/x/abc.sock",
      "--allow-net=unix:/run/x/abc.sock",
      "--deny-import",
    ]);
    for (const a of args) expect(a).not.toMatch(/--allow-(all|run|ffi|sys)|^-A$/);
  });

  test("the caller's variables and exec.sandboxAllow add to the grants", () => {
    const args = denoSandboxArgs({
      files: ["/s.ts"],
      channel,
      callerEnv: ["GREETING"],
      allow: { read: ["/data"], write: ["/out"], net: ["api.example.com:443"], env: ["TZ"] },
      autoInstall: false,
    });
    expect(args).toContain("--allow-read=/s.ts,/run/x/abc.sock,/run/x/abc.run,/data");
    expect(args).toContain("--allow-write=/run/x/abc.sock,/out");
    expect(args).toContain("--allow-net=unix:/run/x/abc.sock,api.example.com:443");
    expect(args).toContain("--allow-env=GREETING,TZ");
  });
});

describe("unsafeDirReason", () => {
  const stat = (o: { link?: boolean; dir?: boolean; uid?: number; mode?: number }) => ({
    isSymbolicLink: () => o.link ?? false,
    isDirectory: () => o.dir ?? true,
    uid: o.uid ?? 1000,
    mode: o.mode ?? 0o40700,
  });
  test("a 0700 directory of ours is fine; another owner, a symlink, a file or a loose mode is not", () => {
    expect(unsafeDirReason(stat({}), 1000)).toBeUndefined();
    expect(unsafeDirReason(stat({ uid: 4242 }), 1000)).toBe("belongs to uid 4242, not to this user (uid 1000)");
    expect(unsafeDirReason(stat({ link: true }), 1000)).toBe("is a symlink");
    expect(unsafeDirReason(stat({ dir: false }), 1000)).toBe("is not a directory");
    expect(unsafeDirReason(stat({ mode: 0o40777 }), 1000)).toBe("has mode 777, not 700");
  });
});
