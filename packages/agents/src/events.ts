import type { Usage } from "@distdebug/schema";

/**
 * Events an agent emits during an attempt, named `<noun>-<verb>`; the runner forwards them
 * among its own run events.
 */
export type AgentEvent =
  | {
      type: "agent-command-end";
      incidentId: string;
      attempt: number;
      command: string;
      exitCode: number | null;
      durationMs: number;
    }
  | { type: "model-call-end"; incidentId: string; attempt: number; usage: Usage };

/** A listener of {@link AgentEvent}s. */
export type AgentEventListener = (event: AgentEvent) => void;
