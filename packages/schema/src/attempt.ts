import { z } from "zod";
import { formatTag, Sha256, Timestamp, Usage } from "./common.js";
import { ScoreMetrics } from "./diagnosis-scores.js";
import { SandboxPolicy } from "./sandbox-policy.js";

/** How an attempt ended. Only `infra-error` and `interrupted` are the harness's fault. */
export const AttemptStatus = z.enum([
  "succeeded",
  "agent-error",
  "limit-exceeded",
  "infra-error",
  "interrupted",
]);
/** How an attempt ended. */
export type AttemptStatus = z.infer<typeof AttemptStatus>;

/**
 * `attempt.json`: written last and atomically. An attempt folder without a valid one is not
 * finished and is redone on resume.
 */
export const Attempt = z.object({
  format: formatTag("attempt", 1),
  incidentId: z.string().min(1),
  /** 1-based attempt number. */
  attempt: z.number().int().min(1),
  status: AttemptStatus,
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  startedAt: Timestamp,
  endedAt: Timestamp,
  durationMs: z.number().min(0),
  /** Milliseconds spent per phase: workspace, leakage, agent, scoring. */
  timings: z.record(z.string(), z.number().min(0)).default({}),
  usage: Usage,
  /** Hash of everything the attempt depends on: config, incident, index, dataset, harness. */
  inputHash: Sha256,
  /** sha256 of each output file of the attempt folder. */
  outputs: z.record(z.string(), Sha256).default({}),
  /** Headline metrics copied from diagnosis_scores.json, for quick reading. */
  metrics: ScoreMetrics.optional(),
  sandbox: z.object({ backend: z.string(), policy: SandboxPolicy }),
});
/** `attempt.json`. */
export type Attempt = z.infer<typeof Attempt>;
