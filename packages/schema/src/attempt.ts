import { z } from "zod";
import { formatTag, Sha256, Timestamp, Usage } from "./common.js";
import { ScoreMetrics } from "./diagnosis-scores.js";
import { ERROR_CODES } from "./errors.js";
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
 * Which limit stopped a command or an attempt: `timeout` (wall clock), `output` (printed past
 * `killOutputBytes`), `file-size` (a file past `fileSizeBytes`, or a trajectory past its 32 MiB
 * cap), `disk` (the workspace and `/output` grew past their disk budget), `memory` (the
 * attempt's processes together used their cgroup memory budget and the kernel killed them).
 */
export const LimitHit = z.enum(["timeout", "output", "file-size", "disk", "memory"]);
/** Which limit stopped a command or an attempt. */
export type LimitHit = z.infer<typeof LimitHit>;

/**
 * How the attempt's resources were bounded on the host that ran it (see `probeSandbox`):
 * `memory` `cgroup-v2` (a total per attempt, enforced by the kernel), `sampled-total` (a total
 * per attempt, sampled: the attempt's uid's processes are killed past it) or
 * `rlimit-per-process` (RLIMIT_AS per process only);
 * `processes` `per-attempt-uid` (RLIMIT_NPROC of a uid of its own) or `shared-uid`; `disk`
 * `tmpfs` (workspace and `/output` capped) or `none`.
 */
export const ResourceEnforcement = z.strictObject({
  memory: z.enum(["cgroup-v2", "sampled-total", "rlimit-per-process"]),
  processes: z.enum(["per-attempt-uid", "shared-uid"]),
  disk: z.enum(["tmpfs", "none"]),
});
/** How an attempt's resources were bounded. */
export type ResourceEnforcement = z.infer<typeof ResourceEnforcement>;

/**
 * Why an attempt failed: a code of the closed union ({@link ERROR_CODES}) and one message. A
 * code this version does not know (an attempt.json written by hand or by another harness; no
 * version of the SDK wrote one) is read as `LEGACY`, its message kept. The JSON Schema says the
 * same: the union, or any other string.
 */
export const AttemptError = z.strictObject({
  code: z.union([
    z.enum(ERROR_CODES),
    z
      .string()
      .transform(() => "LEGACY" as const)
      .meta({ description: "a code outside the union, read as LEGACY" }),
  ]),
  message: z.string(),
});

/** Why an attempt failed (see {@link AttemptError}). */
export type AttemptError = z.infer<typeof AttemptError>;

/**
 * `attempt.json`: written last and atomically. An attempt folder without a valid one is not
 * finished and is redone on resume.
 */
export const Attempt = z.strictObject({
  format: formatTag("attempt", 1),
  incidentId: z.string().min(1),
  /** 1-based attempt number. */
  attempt: z.number().int().min(1),
  status: AttemptStatus,
  error: AttemptError.optional(),
  /** The limit that ended a `limit-exceeded` attempt, when it was a resource of the sandbox. */
  limitHit: LimitHit.optional(),
  startedAt: Timestamp,
  endedAt: Timestamp,
  durationMs: z.number().min(0),
  /** Milliseconds spent per phase: workspace, leakage, agent, scoring. */
  timings: z.record(z.string(), z.number().min(0)).default({}),
  usage: Usage,
  /**
   * Hash of everything the attempt depends on: the harness version, the config identity, the
   * incident id and digest, the attempt number (`attemptInputHash` in @distdebug/results).
   */
  inputHash: Sha256,
  /**
   * sha256 of what the agent of this incident saw: the incident folder's files but gold.json.
   * Absent in attempts written before per-incident identities (their `inputHash` covered the
   * whole dataset's digest).
   */
  incidentDigest: Sha256.optional(),
  /**
   * sha256 of each file the agent produced, as written (`diagnosis.json`, `trajectory.json`,
   * `trajectory.invalid.json`): `package` and `verify` check them. Attempts of earlier releases
   * also hash `diagnosis_scores.json`, which `score` rewrites: readers ignore that entry.
   */
  outputs: z.record(z.string(), Sha256).default({}),
  /**
   * @deprecated Written by earlier releases: a copy of diagnosis_scores.json's metrics, stale once
   * `score` rescored the attempt. Still accepted; nothing reads it (read diagnosis_scores.json).
   */
  metrics: ScoreMetrics.optional(),
  sandbox: z.strictObject({
    backend: z.string(),
    /** The effective policy of the attempt (the config's, with the agent's binds and the leased uid). */
    policy: SandboxPolicy,
    enforcement: ResourceEnforcement.optional(),
    /**
     * The host folders `run` checked the policy's binds against (the dataset, cache and
     * results folders; see `sandboxEnvelopeProblems`). Absent in attempts written before that
     * check, which `package` and `verify` refuse.
     */
    protectedPaths: z.array(z.string()).optional(),
  }),
});
/** `attempt.json`. */
export type Attempt = z.infer<typeof Attempt>;
