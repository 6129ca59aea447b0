// Builds mcpx: one `bun build --compile` binary. --bytecode with --format=esm and --splitting
// keep start-up fast (each command's code, and the SDK, load only when used: --version went from
// 54 to 33 ms with --splitting); never strip the result, that removes the embedded program.
// A compiled program loads a .env and a bunfig.toml from its working directory unless told not to
// (Bun's default): mcpx's environment is the caller's, and its settings come from its own config
// files (decision 0002), so mcpx does neither; a script's runtime, which is Bun, still does.
//
//   bun run build.ts                      dist/mcpx for this machine
//   bun run build.ts release [NAME…]      dist/release/mcpx-NAME for every release target (or the ones
//                                         named) and dist/release/SHA256SUMS (docs/install.md)
//
// Cross-compiling fetches each target's Bun runtime through the npm registry the first time.

import { $ } from "bun";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "./package.json" with { type: "json" };
import { VERSION } from "./lib/version.ts";

/** release name → Bun's compile target; docs/install.md says what each needs */
export const RELEASE_TARGETS: Record<string, string> = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "linux-x64-musl": "bun-linux-x64-musl",
  "linux-arm64-musl": "bun-linux-arm64-musl",
  "darwin-arm64": "bun-darwin-arm64",
  "darwin-x64": "bun-darwin-x64",
};
const RELEASE_DIR = "dist/release";
/**
 * JavaScriptCore's tier-up thresholds, scaled, that the binary starts with: a one-shot command's code
 * runs once, and JIT-compiling it costs CPU its runtime or server needs. Serving code resets it
 * (lib/util/jit-policy.ts). Env MCPX_JIT_POLICY overrides, for measuring (decision 0030).
 */
const JIT_POLICY = Number(process.env.MCPX_JIT_POLICY ?? 8);

if (pkg.version !== VERSION) throw new Error(`lib/version.ts says ${VERSION} but package.json says ${pkg.version}`);

async function compile(outfile: string, target?: string): Promise<void> {
  const targetFlag = target ? [`--target=${target}`] : [];
  const fast = ["--bytecode", "--format=esm", "--splitting", "--minify-syntax", "--minify-whitespace", `--compile-jit-policy=${JIT_POLICY}`];
  const notLoaded = ["--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
  await $`bun build --compile ${fast} ${notLoaded} ${targetFlag} --outfile ${outfile} cmd/main.ts`;
}

const [mode, ...names] = process.argv.slice(2);
if (mode === undefined) {
  await compile(process.env.MCPX_OUTFILE ?? "dist/mcpx", process.env.MCPX_TARGET);
} else if (mode === "release") {
  const unknown = names.filter((n) => !(n in RELEASE_TARGETS));
  if (unknown.length) throw new Error(`unknown release target ${unknown.join(", ")}: use ${Object.keys(RELEASE_TARGETS).join(", ")}`);
  rmSync(RELEASE_DIR, { recursive: true, force: true });
  mkdirSync(RELEASE_DIR, { recursive: true });
  for (const name of names.length ? names : Object.keys(RELEASE_TARGETS)) await compile(join(RELEASE_DIR, `mcpx-${name}`), RELEASE_TARGETS[name]);
  // the format `sha256sum -c SHA256SUMS` checks
  const sums = readdirSync(RELEASE_DIR)
    .filter((f) => f.startsWith("mcpx-"))
    .sort()
    .map((f) => `${new Bun.CryptoHasher("sha256").update(readFileSync(join(RELEASE_DIR, f))).digest("hex")}  ${f}\n`);
  writeFileSync(join(RELEASE_DIR, "SHA256SUMS"), sums.join(""));
  console.log(`${sums.length} binaries and SHA256SUMS in ${RELEASE_DIR}`);
} else {
  throw new Error(`usage: bun run build.ts [release [${Object.keys(RELEASE_TARGETS).join(" ")}]]`);
}
