// mcpx approve ID: allows a paused run's call (cmd/approvals.ts has the decision, here or on the daemon).

import { decisionCommand } from "./approvals.ts";

export default decisionCommand("approve");
