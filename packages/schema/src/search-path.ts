import { z } from "zod";

/**
 * What became of one gold block in an attempt's search (docs/guide/metrics.md, "Search path"):
 * `named` (the diagnosis reached it), `shown-not-named` (it appeared in an observation),
 * `file-only` (its file appeared, the block did not), `never-shown`, or `unknown` (the attempt
 * has no observations to tell: no trajectory, or one without command output).
 */
export const SearchOutcome = z.enum([
  "named",
  "shown-not-named",
  "file-only",
  "never-shown",
  "unknown",
]);
/** The outcome class of one gold block. */
export type SearchOutcome = z.infer<typeof SearchOutcome>;

const Turn = z.number().int().min(1).nullable();
const Tokens = z.number().int().min(0).nullable();
const Seconds = z.number().min(0).nullable();

/**
 * `search` of `diagnosis_scores.json`: did the agent's observations ever show the causal code,
 * at which turn (the agent's actions counted from 1: `3` is the output of its third action),
 * and at what cost. Computed at scoring time from the trajectory and the current gold.
 */
export const SearchPath = z.strictObject({
  /** False when the trajectory holds no observation (then every block not named is `unknown`). */
  observed: z.boolean(),
  /** The agent's turns (actions) in the trajectory. */
  turns: z.number().int().min(0),
  /** Gold files (repository paths, sorted) that appeared in an observation. */
  causalFilesShown: z.array(z.string()),
  /** Indexes of the gold blocks that appeared in an observation. */
  causalBlocksShown: z.array(z.number().int().min(0)),
  /** The turn whose output first showed a gold file; null when none did. */
  firstCausalFileStep: Turn,
  /** The turn whose output first showed a gold block; null when none did. */
  firstCausalBlockStep: Turn,
  /** Input plus output tokens of the model calls up to that turn; null when unknown. */
  tokensToFirstCausalFile: Tokens,
  tokensToFirstCausalBlock: Tokens,
  /** Seconds from the trajectory's start to that turn's output; null when it has no times. */
  secondsToFirstCausalFile: Seconds,
  secondsToFirstCausalBlock: Seconds,
  /** Per gold block (in gold order): its outcome and the turns its file and itself first appeared. */
  blocks: z.array(
    z.strictObject({
      outcome: SearchOutcome,
      fileStep: Turn,
      blockStep: Turn,
    }),
  ),
});
/** The search path of one attempt. */
export type SearchPath = z.infer<typeof SearchPath>;
