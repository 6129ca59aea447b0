// The embedded runtime's command line, in a module of its own with no imports: main.ts starts a
// script runtime before the command loads (cmd/early-runtime.ts), and that must not wait for the
// other runtimes' code (runtimes.ts) to load.

export interface RuntimeCommand {
  argv: string[];
  env: Record<string, string>;
}

/** the mcpx binary as the plain bun CLI, running entry */
export function bunCommand(entry: string, autoInstall: boolean): RuntimeCommand {
  // BUN_BE_BUN makes the compiled mcpx behave as the plain bun CLI; the launcher removes it again so
  // that a child the script starts, such as mcpx itself, is not bun. --no-install: an import of a
  // package the project lacks is an error, never a download (exec.autoInstall).
  return { argv: [process.execPath, "run", ...(autoInstall ? [] : ["--no-install"]), entry], env: { BUN_BE_BUN: "1" } };
}
