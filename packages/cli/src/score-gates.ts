import type { Summary } from "@distdebug/schema";
import { didYouMean } from "@distdebug/schema";
import { METRIC_NAMES, type MetricName } from "@distdebug/stats";
import { usageError } from "./command.js";

/** One `--fail-under metric=points` threshold. */
export interface MetricFloor {
  metric: MetricName;
  /** In points, 0 to 100 (a share of 0.5 is 50 points), as the leaderboard prints them. */
  points: number;
}

const METRICS = METRIC_NAMES;

/**
 * Parses `--fail-under` values such as `blockCoverage=40`: a metric of summary.json
 * (blockCoverage, blockPrecision, fileCoverage, linePrecision) and a floor in points from 0 to
 * 100. A bad value is a `USAGE` error naming it.
 */
export function parseMetricFloors(values: readonly string[]): MetricFloor[] {
  return values.map((text) => {
    const eq = text.indexOf("=");
    const name = eq < 0 ? text : text.slice(0, eq);
    const value = eq < 0 ? "" : text.slice(eq + 1).trim();
    if (!(METRICS as readonly string[]).includes(name))
      throw usageError(
        `--fail-under ${JSON.stringify(text)}: unknown metric ${JSON.stringify(name)}${didYouMean(name, METRICS)}; expected <metric>=<points> with a metric of ${METRICS.join(", ")}`,
      );
    const points = Number(value);
    if (value === "" || !Number.isFinite(points) || points < 0 || points > 100)
      throw usageError(
        `--fail-under ${JSON.stringify(text)}: expected points from 0 to 100 after "=" (as the leaderboard prints them: 40 means a mean of 0.40), found ${JSON.stringify(value)}`,
      );
    return { metric: name as MetricName, points };
  });
}

/**
 * Why a summary fails the CI gates, one line each (empty when it passes): incomplete when
 * `requireComplete`, and each metric whose mean is below its floor (a metric without a value,
 * no incident scored, fails).
 */
export function gateFailures(
  summary: Summary,
  options: { requireComplete: boolean; floors: readonly MetricFloor[] },
): string[] {
  const failures: string[] = [];
  const { counts } = summary;
  if (options.requireComplete && !summary.complete)
    failures.push(
      `incomplete: ${counts.infraErrors} infra errors, ${counts.interrupted} interrupted, ${counts.missingAttempts} missing attempts (rerun them with distdebug run --rerun-infra)`,
    );
  for (const floor of options.floors) {
    const mean = summary.metrics[floor.metric]?.mean;
    const points = mean === undefined ? undefined : mean * 100;
    if (points === undefined || points < floor.points)
      failures.push(
        `${floor.metric} ${points === undefined ? "has no value" : points.toFixed(1)} is under --fail-under ${floor.points}`,
      );
  }
  return failures;
}
