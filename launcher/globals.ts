// The host runtime's globals (process, Bun, Deno), which differ per runtime and are probed at run
// time: one untyped view of globalThis for the launcher's modules.

// biome-ignore lint/suspicious/noExplicitAny: the runtime's globals (process, Bun, Deno) differ per runtime and are probed at run time
export const g = globalThis as Record<string, any>;
