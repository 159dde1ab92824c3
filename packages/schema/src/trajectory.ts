import { z } from "zod";
import { formatTag, Usage } from "./common.js";

const at = z.string().optional();

/**
 * How an agent's run ended, one vocabulary for every trajectory: `submitted` (it handed in
 * its answer, or its program ended normally), `limit-exceeded` (a step, token, cost or time
 * limit ended it), `error` (it failed: an exception, a crash, a non-zero exit), `unknown`
 * (the trajectory does not say).
 */
export const TrajectoryExitStatus = z.enum(["submitted", "limit-exceeded", "error", "unknown"]);

/** One of the four words of {@link TrajectoryExitStatus}. */
export type TrajectoryExitStatus = z.infer<typeof TrajectoryExitStatus>;

/**
 * The exit status of {@link TrajectoryExitStatus} for another harness's word: mini-swe-agent's
 * `Submitted` and `LimitsExceeded` (and the exception name of any other end, an `error`), an
 * older command agent's `exited`; nothing (or an empty word) is `unknown`.
 *
 * @example
 * ```ts
 * trajectoryExitStatus("LimitsExceeded"); // "limit-exceeded"
 * trajectoryExitStatus("RuntimeError"); // "error"
 * ```
 */
export function trajectoryExitStatus(word: string | null | undefined): TrajectoryExitStatus {
  const known = TrajectoryExitStatus.safeParse(word);
  if (known.success) return known.data;
  const plain = (word ?? "").toLowerCase().replace(/[^a-z]/g, "");
  if (plain === "") return "unknown";
  if (plain === "submitted" || plain === "exited") return "submitted";
  if (plain.startsWith("limit")) return "limit-exceeded";
  return "error";
}

/** A message of the conversation between the agent and the model. */
export const MessageStep = z.strictObject({
  type: z.literal("message"),
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  at,
});

/** One call to the model with its token use and cost. */
export const ModelCallStep = z.strictObject({
  type: z.literal("model-call"),
  model: z.string().optional(),
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  cachedTokens: z.number().int().min(0).default(0),
  /** Prompt tokens written to the provider's cache for 5 minutes (part of inputTokens). */
  cacheWrite5mTokens: z.number().int().min(0).optional(),
  /** Prompt tokens written to the provider's cache for 1 hour, or for a lifetime not named. */
  cacheWrite1hTokens: z.number().int().min(0).optional(),
  /** Completion tokens spent reasoning (part of outputTokens). */
  reasoningTokens: z.number().int().min(0).optional(),
  /** Null when no price is known. */
  costUsd: z.number().min(0).nullable().default(null),
  durationMs: z.number().min(0).optional(),
  /** Set when the call failed (after retries). */
  error: z.string().optional(),
  at,
});

/** One shell command the agent ran, with what it printed. */
export const CommandStep = z.strictObject({
  type: z.literal("command"),
  command: z.string(),
  /** Null when the command was killed (timeout, signal). */
  exitCode: z.number().int().nullable(),
  output: z.string(),
  durationMs: z.number().min(0).optional(),
  timedOut: z.boolean().optional(),
  truncated: z.boolean().optional(),
  at,
});

/** One step of a trajectory. */
export const TrajectoryStep = z.discriminatedUnion("type", [
  MessageStep,
  ModelCallStep,
  CommandStep,
]);
/** One step of a trajectory. */
export type TrajectoryStep = z.infer<typeof TrajectoryStep>;

/**
 * `trajectory.json`: what the agent did, in order, with token use and cost.
 * Readers also accept mini-swe-agent trajectories and convert them
 * (see `convertMiniSweAgentTrajectory` in @distdebug/agents).
 */
export const Trajectory = z.strictObject({
  format: formatTag("trajectory", 1),
  incidentId: z.string().optional(),
  agent: z.strictObject({ name: z.string().min(1), version: z.string().optional() }),
  model: z
    .strictObject({ provider: z.string().optional(), name: z.string().optional() })
    .optional(),
  /**
   * How the agent ended ({@link TrajectoryExitStatus}). Another word (an agent that writes its
   * own trajectory, a results folder of an older version) is read through
   * {@link trajectoryExitStatus}.
   */
  exitStatus: z.union([
    TrajectoryExitStatus,
    z
      .string()
      .min(1)
      .transform(trajectoryExitStatus)
      .meta({ description: "another harness's word, read as one of the four" }),
  ]),
  /** What the agent submitted as text, if anything. */
  submission: z.string().optional(),
  usage: Usage,
  steps: z.array(TrajectoryStep),
  startedAt: at,
  endedAt: at,
  durationMs: z.number().min(0).optional(),
  /** The format this trajectory was converted from, if any (`mini-swe-agent-1.1`). */
  convertedFrom: z.string().optional(),
  /** Fields of the source trajectory that have no place above, kept as they were. */
  extra: z.record(z.string(), z.unknown()).optional(),
});
/** `trajectory.json`. */
export type Trajectory = z.infer<typeof Trajectory>;
