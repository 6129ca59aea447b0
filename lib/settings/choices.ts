// The closed lists a setting accepts that the engine also branches on. They sit here, below the
// settings registry and below the code that acts on them (the dial in lib/hooks, the runtimes in
// lib/exec), so that both import one declaration and neither copies it.

/** the autonomy dial, least to most; ask and refuse share a rung (design §1) */
export const LEVELS = ["off", "advise", "ask", "refuse", "propose", "apply", "run"] as const;
export type Level = (typeof LEVELS)[number];

/** what a script runs on: auto and bun are the embedded Bun, deno and node come from PATH */
export const RUNTIMES = ["auto", "bun", "deno", "node"] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

/** what a sandboxed run runs on: the embedded QuickJS, or Deno's permissions (decision 0023) */
export const SANDBOX_ENGINES = ["quickjs", "deno"] as const;
export type SandboxEngine = (typeof SANDBOX_ENGINES)[number];
