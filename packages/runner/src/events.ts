import type { AgentEvent } from "@distdebug/agents";
import type { Attempt, AttemptStatus } from "@distdebug/schema";

/** A phase of one attempt, timed in `attempt.json`'s `timings`. */
export type AttemptPhase = "workspace" | "leakage" | "sandbox" | "agent" | "scoring";

/**
 * Events of {@link runBenchmark} and {@link runAttempt}, named `<noun>-<verb>`, with the
 * agents' own events (`command-end`, `model-call-end`).
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
  | { type: "attempt-end"; incidentId: string; attempt: number; record: Attempt }
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
