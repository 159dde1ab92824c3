import type { AgentEvent } from "@distdebug/agents";
import type { SandboxEvent } from "@distdebug/sandbox";
import type { Attempt, AttemptStatus, ScoreMetrics } from "@distdebug/schema";
import type { WorkspaceEvent } from "@distdebug/workspace";

/** A phase of one attempt, timed in `attempt.json`'s `timings`. */
export type AttemptPhase = "workspace" | "leakage" | "sandbox" | "agent" | "scoring";

/**
 * Events of {@link runBenchmark} and {@link runAttempt}, named `<noun>-<verb>`, with the
 * agents' own events (`agent-command-end`, `model-call-end`). The events of the layers an
 * attempt calls arrive wrapped and tagged with the attempt: `attempt-workspace` carries a
 * {@link WorkspaceEvent} (cache hit or miss, tree copy, ...) and `attempt-sandbox` a
 * {@link SandboxEvent} (`sandbox-warn`, `command-start`, `command-end`); `incident-workspace`
 * carries the workspace events of preparing an incident once (the clone of its repository).
 */
export type RunEvent =
  | {
      type: "run-start";
      name: string;
      outDir: string;
      incidents: number;
      attempts: number;
      pending: number;
    }
  | { type: "run-warn"; message: string }
  | { type: "attempt-skip"; incidentId: string; attempt: number; status: AttemptStatus }
  | { type: "attempt-start"; incidentId: string; attempt: number }
  | { type: "attempt-phase"; incidentId: string; attempt: number; phase: AttemptPhase }
  | AgentEvent
  | { type: "incident-workspace"; incidentId: string; event: WorkspaceEvent }
  | { type: "attempt-workspace"; incidentId: string; attempt: number; event: WorkspaceEvent }
  | { type: "attempt-sandbox"; incidentId: string; attempt: number; event: SandboxEvent }
  | {
      type: "attempt-end";
      incidentId: string;
      attempt: number;
      record: Attempt;
      /** The headline metrics of its diagnosis_scores.json, when it was scored. */
      metrics?: ScoreMetrics;
    }
  | {
      type: "run-end";
      done: number;
      skipped: number;
      failed: number;
      infraErrors: number;
      interrupted: boolean;
      durationMs: number;
    };

/** A listener of {@link RunEvent}s. */
export type RunEventListener = (event: RunEvent) => void;
