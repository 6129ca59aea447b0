// Builds dist/mcpx: one `bun build --compile` binary. --bytecode with --format=esm and --splitting
// keep start-up fast (each command's code, and the SDK, load only when used: --version went from
// 54 to 33 ms with --splitting); never strip the result, that removes the embedded program.

import { $ } from "bun";
import pkg from "./package.json" with { type: "json" };
import { VERSION } from "./lib/version.ts";

if (pkg.version !== VERSION) throw new Error(`lib/version.ts says ${VERSION} but package.json says ${pkg.version}`);
const target = process.env.MCPX_TARGET ? [`--target=${process.env.MCPX_TARGET}`] : [];
const outfile = process.env.MCPX_OUTFILE ?? "dist/mcpx";
await $`bun build --compile --bytecode --format=esm --splitting --minify-syntax --minify-whitespace ${target} --outfile ${outfile} cmd/main.ts`;
