// mcpx reject ID [--reason TEXT]: refuses a paused run's call (cmd/approvals.ts has the decision, here or on the daemon).

import { decisionCommand } from "./approvals.ts";

export default decisionCommand("reject");
