import type { Summary } from "@distdebug/schema";
import type { IncidentRow, MetricName } from "./aggregate.js";
import { sampleSd } from "./bootstrap.js";
import { exactMean, exactSum } from "./internal/exact-sum.js";

/** Run-to-run variation of one metric (the schema's `RunToRun`). */
export type RunToRun = NonNullable<Summary["runToRun"]>[MetricName];

/**
 * Run-to-run variation: the score of run k (mean over incidents of attempt k), the SD of
 * those run scores, the pooled within-incident SD of attempt scores, and the share of the
 * attempt-score variance due to run noise, within / (within + between), where the
 * between-incident variance is var(incident means) - within * mean(1 / attempts), at least 0.
 * Undefined with fewer than two runs that have scores.
 *
 * @example
 * ```ts
 * runToRun(aggregateAttempts(attempts, incidents).scored, 3, "blockCoverage")?.perRun; // [0.71, 0.74, 0.72]
 * ```
 */
export function runToRun(
  rows: readonly IncidentRow[],
  runs: number,
  metric: MetricName,
): RunToRun | undefined {
  const perRun: number[] = [];
  for (let k = 1; k <= runs; k++) {
    const values: number[] = [];
    for (const row of rows) {
      const scores = row.scores.get(k);
      if (scores) values.push(scores[metric]);
    }
    if (values.length > 0) perRun.push(exactMean(values));
  }
  if (perRun.length < 2) return undefined;
  const squares: number[] = [];
  let degrees = 0;
  const means: number[] = [];
  const inverseCounts: number[] = [];
  for (const row of rows) {
    if (!row.means) continue;
    const values = [...row.scores.values()].map((scores) => scores[metric]);
    means.push(row.means[metric]);
    inverseCounts.push(1 / values.length);
    if (values.length < 2) continue;
    for (const value of values) squares.push((value - row.means[metric]) ** 2);
    degrees += values.length - 1;
  }
  const within = degrees > 0 ? exactSum(squares) / degrees : 0;
  const between = Math.max(0, sampleSd(means) ** 2 - within * exactMean(inverseCounts));
  const total = within + between;
  return {
    perRun,
    sd: sampleSd(perRun),
    withinIncidentSd: Math.sqrt(within),
    noiseShare: total > 0 ? Math.min(1, within / total) : 0,
  };
}
