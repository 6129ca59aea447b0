// The points table: every moment a hook can hold an operation up, with its phases and, per phase,
// what a hook receives and which output keys mean something there. Validation (lib/hooks/schema.ts),
// docs/hooks.md and the guard test that fires every point in every phase all come from this table.
// A point that nothing fires must not be here.

import { LEVELS, type Level } from "../settings/choices.ts";

export { LEVELS, type Level };

export const PHASES = ["before", "prefix", "onSuccess", "onError", "suffix", "observe"] as const;
export type Phase = (typeof PHASES)[number];

/** output keys a hook may return, each with the level it needs */
export const OUTPUT_KEYS = ["advise", "ask", "refuse", "propose", "apply", "run"] as const;
export type OutputKey = (typeof OUTPUT_KEYS)[number];

export interface PhaseSpec {
  /** what the hook's stdin JSON carries, besides {point, phase, runId} */
  receives: string;
  /** the output keys that act at this phase; any other key is dropped and reported */
  keys: readonly OutputKey[];
  /** what each key does here, for docs/hooks.md */
  effects: Partial<Record<OutputKey, string>>;
}

export interface PointSpec {
  fires: string;
  /** the `when` keys a hook on this point may filter by: the context the point's owner passes to hookMatches */
  filters: readonly ("server" | "tool" | "session" | "uri")[];
  /**
   * a refusal does not end the phase: every hook is heard and the gate returns every objection
   * (agent.stop, where the agent host gets all of them at once, as seed 000's gate delivers a hook
   * objection and a reminder together). Elsewhere the first refusal ends the phase.
   */
  hearsEveryObjection?: boolean;
  phases: Partial<Record<Exclude<Phase, "observe" | "prefix">, PhaseSpec>>;
}

export const POINTS = {
  script: {
    fires: "one script run: mcpx run/exec (local or --remote), POST /v1/exec, mcpx_exec",
    filters: ["session"],
    phases: {
      before: {
        receives: "script {path, name, args, export}",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: {
          refuse: "the script never starts (exit 77)",
          ask: "asks on a TTY; refuses where nobody can answer",
          propose: "reports replacement args",
          apply: "replaces the script's args (an array of strings)",
        },
      },
      onSuccess: {
        receives: "script, result (the value the script returned, as JSON: `result: 5`, not {value: 5})",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: { refuse: "turns the success into a failure (exit 1)", propose: "reports a replacement value", apply: "replaces the result value" },
      },
      onError: {
        receives: "script, error {name, message, code}",
        keys: ["advise", "propose", "apply", "run"],
        effects: {
          propose: "reports a recovery value",
          apply: "recovers: the run succeeds with this value",
          run: '"retry" runs the script again, within hooks.retryBudget',
        },
      },
      suffix: { receives: "script, result or error", keys: ["advise"], effects: {} },
    },
  },
  call: {
    fires: "one tools/call going upstream, from a script or mcpx call",
    filters: ["server", "tool", "session"],
    phases: {
      before: {
        receives: "call {server, tool, arguments, annotations}",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: {
          refuse: "the call throws a catchable error naming the hook; the server never sees it",
          ask:
            "asks where someone can answer (a TTY, an MCP client with elicitation); in mcpx_exec with nobody to ask, " +
            "the run pauses for mcpx approve (pending approvals); elsewhere refuses where nobody can",
          propose: "reports replacement arguments",
          apply: "replaces the arguments object",
        },
      },
      onSuccess: {
        receives: "call, result (the raw MCP result)",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: { refuse: "the call fails with the hook's reason", propose: "reports a replacement result", apply: "replaces the result" },
      },
      onError: {
        receives: "call, error {name, message, code}",
        keys: ["advise", "propose", "apply", "run"],
        effects: { propose: "reports a recovery result", apply: "recovers with this result", run: '"retry" calls again, within hooks.retryBudget' },
      },
      suffix: { receives: "call, result or error", keys: ["advise"], effects: {} },
    },
  },
  "resource.read": {
    fires: "one resources/read going upstream, from a script (resources.read) or mcpx resource SERVER URI (local or --remote: POST /v1/resource)",
    filters: ["server", "uri", "session"],
    phases: {
      before: {
        receives: "resource {server, uri}",
        keys: ["advise", "ask", "refuse"],
        effects: { refuse: "the read throws a catchable error naming the hook; the server never sees it" },
      },
      onSuccess: {
        receives: "resource, result (the raw MCP result: {contents})",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: { refuse: "the read fails with the hook's reason", propose: "reports a replacement result", apply: "replaces the result" },
      },
      onError: {
        receives: "resource, error {name, message, code}",
        keys: ["advise", "propose", "apply", "run"],
        effects: { propose: "reports a recovery result", apply: "recovers with this result", run: '"retry" reads again, within hooks.retryBudget' },
      },
      suffix: { receives: "resource, result or error", keys: ["advise"], effects: {} },
    },
  },
  "prompt.get": {
    fires: "one prompts/get going upstream, from a script (prompts.get) or mcpx prompt SERVER NAME (local or --remote: POST /v1/prompt)",
    filters: ["server", "session"],
    phases: {
      before: {
        receives: "prompt {server, name, arguments}",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: {
          refuse: "the get throws a catchable error naming the hook; the server never sees it",
          propose: "reports replacement arguments",
          apply: "replaces the arguments object (string values)",
        },
      },
      onSuccess: {
        receives: "prompt, result (the raw MCP result: {description, messages})",
        keys: ["advise", "ask", "refuse", "propose", "apply"],
        effects: { refuse: "the get fails with the hook's reason", propose: "reports a replacement result", apply: "replaces the result" },
      },
      onError: {
        receives: "prompt, error {name, message, code}",
        keys: ["advise", "propose", "apply", "run"],
        effects: { propose: "reports a recovery result", apply: "recovers with this result", run: '"retry" gets it again, within hooks.retryBudget' },
      },
      suffix: { receives: "prompt, result or error", keys: ["advise"], effects: {} },
    },
  },
  "server.start": {
    fires: "a pooled upstream server instance starting",
    filters: ["server"],
    phases: {
      before: {
        receives: "server {name, kind, command|url}",
        keys: ["advise", "ask", "refuse"],
        effects: { refuse: "the server is not started; calls to it fail naming the hook" },
      },
      onSuccess: {
        receives: "server, tools (how many tools a script can call: `_` hook tools are not counted)",
        keys: ["advise", "ask", "refuse"],
        effects: { refuse: "the started server is stopped again; calls to it fail naming the hook" },
      },
      onError: { receives: "server, error", keys: ["advise"], effects: {} },
    },
  },
  // The agent-host points of design §5: `mcpx serve` offers the `_Stop` and `_PostCompact` tools of
  // the seed-000 convention, and each call of one fires its point once (lib/mcpserver/agent-hooks.ts).
  "agent.stop": {
    fires: "an agent host calling mcpx serve's _Stop tool: its model wants to end the turn",
    filters: [],
    hearsEveryObjection: true,
    phases: {
      before: {
        receives: "nothing else: the convention's input is {}",
        keys: ["advise", "ask", "refuse"],
        effects: {
          advise: "a note on mcpx serve's stderr and MCP log; not an objection",
          ask: "asks the MCP client (elicitation) whether the agent may stop; objects where nobody can answer",
          refuse: "objects: _Stop returns the text, attributed {hook, server, text}, and the host keeps the agent going; every hook is heard",
        },
      },
    },
  },
  "agent.compact": {
    fires: "an agent host calling mcpx serve's _PostCompact tool: it has just compacted its context",
    filters: [],
    phases: {
      onSuccess: {
        receives: "nothing else: the convention's input is {}",
        keys: ["advise"],
        effects: { advise: "text to re-inject into the fresh context: _PostCompact returns it, attributed {hook, server, text}" },
      },
    },
  },
} as const satisfies Record<string, PointSpec>;

export type PointName = keyof typeof POINTS;
export const POINT_NAMES = Object.keys(POINTS) as PointName[];

export function phasesOf(point: PointName): Phase[] {
  return Object.keys(POINTS[point].phases) as Phase[];
}

export function phaseSpec(point: PointName, phase: Phase): PhaseSpec | undefined {
  return (POINTS[point].phases as Partial<Record<Phase, PhaseSpec>>)[phase];
}

/** the highest level a phase allows at all: suffix only advises, observe never acts */
export function phaseCeiling(phase: Phase): Level {
  if (phase === "observe") return "off";
  if (phase === "suffix") return "advise";
  return "run";
}

export function levelRank(level: Level | OutputKey): number {
  // ask and refuse are one rung
  return level === "ask" ? LEVELS.indexOf("refuse") : LEVELS.indexOf(level as Level);
}
