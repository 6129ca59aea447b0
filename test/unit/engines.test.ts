// `npm install` of the project prints no EBADENGINE warning on the Node this machine runs:
// every package the lock file installs either names no Node engine or one that Node satisfies. The
// lock file is what npm installs, and it records each package's engines, so no network is needed.
// (mcporter, the bench's peer, wants Node >= 24: `make bench` installs it into a cache of its own.)

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };

/** the Node that `npm install` runs on here (bun test's own process.versions.node is Bun's claim, not Node's) */
function nodeVersion(): string | undefined {
  const r = Bun.spawnSync(["node", "--version"], { stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim().replace(/^v/, "") : undefined;
}

describe("npm install prints no EBADENGINE warning", () => {
  const node = nodeVersion();

  test.skipIf(node === undefined)("every package in package-lock.json accepts the running Node", () => {
    const mismatches = Object.entries(lock.packages)
      .filter(([path, p]) => path !== "" && !Array.isArray(p.engines) && typeof p.engines?.node === "string")
      .filter(([, p]) => !Bun.semver.satisfies(node!, (p.engines as { node: string }).node))
      .map(([path, p]) => `${path.replace(/^node_modules\//, "")}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(mismatches).toEqual([]);
  });

  test("mcporter is not a devDependency: make bench installs it for itself", () => {
    expect(Object.keys(pkg.devDependencies)).not.toContain("mcporter");
  });
});
