// The capability to send a tools/call upstream. The Pool's sending method is keyed by this symbol,
// not by a name on its public surface, and only the gate's call point (lib/exec/gated-call.ts)
// imports it: so a call cannot reach a server without passing the gate (design §7). A guard test
// (test/unit/upstream-call-capability.test.ts) fails when any other file references it. The `_`
// lifecycle hook tools have their own narrow method instead (Pool.callHookTool).

export const SEND_TOOLS_CALL: unique symbol = Symbol("mcpx: send tools/call upstream");

/**
 * The same for the two other requests a script can make (resources/read, prompts/get): only the
 * gate's resource.read and prompt.get points hold it (lib/exec/gated-feature.ts).
 */
export const SEND_FEATURE_REQUEST: unique symbol = Symbol("mcpx: send resources/read or prompts/get upstream");
