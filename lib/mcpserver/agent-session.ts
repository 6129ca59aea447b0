// One agent's session with mcpx as an MCP server: `mcpx serve`'s process, a 2025 session of the
// daemon's /mcp (its Mcp-Session-Id), or, for 2026-07-28 requests, which have no session, the
// daemon's /mcp itself. It owns what lasts from one tools/call to the next: the workspace its runs
// keep files in (removed when the session ends), the id that binds the approvals its runs
// paused to it, so that no other session can resume them while it lasts (lib/approvals/exec-run.ts), and the
// artifacts its runs made, which it alone may read by their links (artifact-content.ts).

import { join } from "node:path";
import type { Session } from "../session/session.ts";
import { artifactLink } from "./artifact-content.ts";
import { newWorkspace, type Workspace } from "../workspace/workspace.ts";
import { running } from "../process/proc-table.ts";
import { randomHex } from "../util/random-bytes.ts";

export interface AgentSession {
  /** random and never shown to an agent: the owner of the approvals this session's runs paused */
  readonly id: string;
  readonly workspace: Workspace;
  /** keeps an artifact one of its runs made readable by this session until it closes; its link */
  keepArtifact(a: KeptArtifact): string;
  /** an artifact this session's runs made, by its link; undefined for any other (another session's too) */
  artifact(link: string): KeptArtifact | undefined;
  /** removes the workspace and forgets the artifacts; the session's paused approvals become the next session's to resume */
  close(): void;
}

/** an artifact as its session keeps it: where its content-addressed bytes are, and what they are */
interface KeptArtifact {
  id: string;
  name: string;
  mime: string;
  size: number;
  path: string;
}

/** the agent sessions of this process that have not ended */
const live = new Set<string>();

/**
 * Whether the agent session `id` of process `pid` may still resume what it paused: a session of this
 * process while it has not ended; one of another process while that process runs (mcpx serve is one
 * session a process). An approval whose session has ended, its agent host restarted say, is then
 * the next session's to resume: nobody else's is taken from a session that is still there.
 */
export function agentSessionLive(id: string, pid: number): boolean {
  return pid === process.pid ? live.has(id) : running(pid);
}

export function newAgentSession(session: Pick<Session, "cacheDir" | "get">): AgentSession {
  // made when a run first needs it: a session that only lists tools never reads a setting for it
  let workspace: Workspace | undefined;
  let closed = false;
  const artifacts = new Map<string, KeptArtifact>();
  const id = randomHex(16);
  live.add(id);
  return {
    id,
    get workspace() {
      if (!workspace) {
        workspace = newWorkspace(join(session.cacheDir, "workspaces"), session.get("exec.workspaceQuota") * 1024 * 1024);
        // a run that outlived its session's end gets a workspace that refuses every operation
        if (closed) workspace.close();
      }
      return workspace;
    },
    keepArtifact(a) {
      const link = artifactLink(a.id);
      // a run that outlived its session's end makes artifacts nobody can read
      if (!closed) artifacts.set(link, a);
      return link;
    },
    artifact: (link) => artifacts.get(link),
    close() {
      closed = true;
      live.delete(id);
      workspace?.close();
      artifacts.clear();
    },
  };
}
