// The binary in a container (docs/install.md): it runs scripts with nothing else installed, in an
// empty root that holds only it and the C library (what a slim image adds nothing to), and without a
// usable HOME (no HOME and no passwd entry, or a read-only one) it keeps its caches in a private
// directory under TMPDIR and says so in one line, never a stack trace. The root is made with chroot
// and a private /proc mount, so these need root, as CI and the dev machines run.

import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { MCPX, sandbox } from "./harness.ts";

const sb = sandbox();
const asRoot = process.getuid?.() === 0;

/** the shared objects the binary loads, from ldd: the dynamic loader and glibc's parts */
function libraries(): string[] {
  const out = spawnSync("ldd", [MCPX], { encoding: "utf8" }).stdout;
  return [...out.matchAll(/(\/\S+\.so[.\d]*)/g)].map((m) => m[1]!);
}

/** an empty root with /bin/mcpx, the libraries, /tmp and a mount point for /proc */
function emptyRoot(): string {
  const root = join(sb.dir, "root");
  for (const lib of libraries()) {
    mkdirSync(join(root, dirname(lib)), { recursive: true });
    copyFileSync(lib, join(root, lib));
  }
  mkdirSync(join(root, "bin"), { recursive: true });
  copyFileSync(MCPX, join(root, "bin/mcpx"));
  chmodSync(join(root, "bin/mcpx"), 0o755);
  mkdirSync(join(root, "tmp"), { recursive: true });
  chmodSync(join(root, "tmp"), 0o1777);
  mkdirSync(join(root, "proc"), { recursive: true });
  return root;
}

/** runs mcpx in the root with a private /proc, under a bare environment, as `uid` */
function inRoot(root: string, args: string[], env: string[], uid = 0) {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const as = uid === 0 ? "" : `--userspec=${uid}:${uid} `;
  const script = `mount -t proc proc ${root}/proc && exec env -i ${env.join(" ")} /usr/sbin/chroot ${as}${root} /bin/mcpx ${quoted}`;
  return spawnSync("unshare", ["-m", "sh", "-c", script], { encoding: "utf8", timeout: 60_000 });
}

afterAll(() => rmSync(join(sb.dir, "root"), { recursive: true, force: true }));

describe.skipIf(!asRoot)("in an empty root (a slim image, as root)", () => {
  const root = asRoot ? emptyRoot() : "";

  test("mcpx exec runs a script with its embedded runtime: no Bun, Node or Deno in the root", () => {
    const r = inRoot(root, ["exec", 'console.log("in the box"); return 6 * 7'], ["PATH=/bin", "HOME=/tmp"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("in the box\n42\n");
    expect(r.status).toBe(0);
  });

  test("with no HOME and no passwd entry it keeps its caches under TMPDIR and says so in one line", () => {
    const r = inRoot(root, ["exec", 'console.log("no home")'], ["PATH=/bin"], 4242);
    expect(r.stdout).toBe("no home\n");
    expect(r.stderr.trim().split("\n")).toEqual([
      "[info] mcpx: HOME is not set and this user has no passwd entry: mcpx keeps its caches in " +
        "/tmp/mcpx-home-4242 (set HOME, or XDG_CACHE_HOME and XDG_STATE_HOME, to choose)",
    ]);
    expect(r.status).toBe(0);
  });

  test("with a HOME it cannot write it does the same, naming that HOME", () => {
    const r = inRoot(root, ["exec", 'console.log("read-only home")'], ["PATH=/bin", "HOME=/bin"], 4243);
    expect(r.stdout).toBe("read-only home\n");
    expect(r.stderr).toContain("HOME (/bin) is not writable: mcpx keeps its caches in /tmp/mcpx-home-4243");
    expect(r.stderr).not.toContain("    at ");
    expect(r.status).toBe(0);
  });
});
