// The binary starts with JavaScriptCore's tier-up thresholds scaled up (build.ts JIT_POLICY): most of
// what a one-shot command runs (module set-up, config, the schemas) runs once, and compiling it on
// the JIT's threads took a core from the script runtime starting beside it on a 2-core machine.
// Code that serves many calls (a script's run, the daemon, mcpx serve) says so here, and tiers up as
// usual from then on: with the scaled policy kept, 10,000 calls took 13% longer each (decision 0030).

let steady = false;

/** from now on this process serves calls, not start-up: the normal JIT policy (once; a no-op after) */
export function servingCalls(): void {
  if (steady) return;
  steady = true;
  // absent from a Bun without it (a test that imports this under plain bun): nothing to undo then
  (Bun.unsafe as { setJITPolicy?: (scale: number) => void }).setJITPolicy?.(1);
}
