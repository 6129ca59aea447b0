// The capability to send a tools/call upstream. The Pool's sending method is keyed by this symbol,
// not by a name on its public surface, and only the gate's call point (lib/exec/gated-call.ts)
// imports it: so a call cannot reach a server without passing the gate (design §7). A guard test
// (test/unit/upstream-call-capability.test.ts) fails when any other file references it. The `_`
// lifecycle hook tools have their own narrow method instead (Pool.callHookTool).

export const SEND_TOOLS_CALL: unique symbol = Symbol("mcpx: send tools/call upstream");
