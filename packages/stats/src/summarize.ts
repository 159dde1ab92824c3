import type { Estimate, Summary } from "@distdebug/schema";
import {
  type AttemptRecord,
  aggregateAttempts,
  type IncidentRecord,
  METRIC_NAMES,
  type MetricName,
} from "./aggregate.js";
import { bootstrapMean, type MeanResult, pairedDifference } from "./bootstrap.js";
import { exactMean } from "./internal/exact-sum.js";
import { type MethodOptions, resolveMethod } from "./method.js";
import { sharedResamplePlan } from "./resample-plan.js";
import { runToRun } from "./run-to-run.js";
import { searchSummary } from "./search-summary.js";
import { subgroupTables } from "./subgroups.js";

/** Options of {@link summarize}. */
export interface SummarizeOptions extends MethodOptions {
  /** The configuration's name, for example `mini-swe-agent-gpt-5.4`. */
  name: string;
  /** Every attempt record of the results folder. */
  attempts: readonly AttemptRecord[];
  /** Every incident of the dataset (for subgroups and missing attempts). */
  incidents: readonly IncidentRecord[];
  /** Attempts expected per incident; default the highest attempt number seen. Higher ones are ignored. */
  attemptsPerIncident?: number;
  /** Compute subgroup tables. Default true. */
  subgroups?: boolean;
}

/** The aggregation rules, written into every summary. */
export const CONVENTIONS: readonly string[] = [
  "An incident's value is the mean over its counted attempts; the benchmark value is the mean of incident values, every incident weighted equally whatever its number of blocks or attempts.",
  "A failed attempt (agent-error, limit-exceeded, or no diagnosis) scores 0 on every metric and is counted, never dropped.",
  "The precision of an attempt that names no code is 0, not undefined.",
  "Infra errors and interrupted attempts are not counted; they are listed under rerun and keep the summary incomplete.",
  "Missing attempts are listed, never imputed; an incident without a counted attempt is left out of n.",
  "Intervals: incident (cluster) bootstrap, incidents resampled with replacement with their attempts kept together, on one plan shared by all metrics; se is the analytic clustered standard error, sd of incident values / sqrt(n).",
  "Metrics are shares from 0 to 1; reports show them on a 0-100 scale.",
];

function emptyEstimate(): Estimate {
  return { mean: 0, low: 0, high: 0, se: 0, n: 0 };
}

/**
 * The `summary.json` of one configuration: per-metric mean with incident-bootstrap CI and
 * analytic clustered SE, counts, usage per run, the localization gap (file coverage minus
 * block coverage, paired), subgroup tables, run-to-run variation, per-incident means, and
 * the missing and to-rerun attempts. Deterministic: the same input and seed give the same
 * bytes through `serialize`.
 *
 * @example
 * ```ts
 * const summary = summarize({ name: "baseline", attempts, incidents, seed: 1 });
 * formatEstimate(summary.metrics.blockCoverage); // "72.6 [65.7, 79.3]"
 * ```
 */
export function summarize(options: SummarizeOptions): Summary {
  const method = resolveMethod(options);
  const interval = { method: method.method, confidence: method.confidence };
  const aggregation = aggregateAttempts(
    options.attempts,
    options.incidents,
    options.attemptsPerIncident,
  );
  const scored = aggregation.scored;
  const n = scored.length;
  const values = new Map<MetricName, number[]>();
  for (const metric of METRIC_NAMES)
    values.set(
      metric,
      scored.map((row) => row.means?.[metric] ?? 0),
    );

  const metrics = {} as Summary["metrics"];
  const results = new Map<MetricName, MeanResult>();
  const plan =
    n > 0
      ? sharedResamplePlan({ size: n, resamples: method.resamples, seed: method.seed })
      : undefined;
  if (plan) {
    for (const metric of METRIC_NAMES) {
      const result = bootstrapMean(values.get(metric) ?? [], plan, interval);
      results.set(metric, result);
      metrics[metric] = result.estimate;
    }
  } else {
    for (const metric of METRIC_NAMES) metrics[metric] = emptyEstimate();
  }

  let failed = 0;
  let infraErrors = 0;
  let interrupted = 0;
  let counted = 0;
  for (const row of aggregation.rows) {
    failed += row.failed;
    infraErrors += row.infraErrors;
    interrupted += row.interrupted;
    counted += row.scores.size;
  }
  const usages = scored.flatMap((row) => (row.usage ? [row.usage] : []));
  const perRun = (pick: (usage: (typeof usages)[number]) => number): number =>
    usages.length === 0 ? 0 : exactMean(usages.map(pick));

  const summary: Summary = {
    format: "distdebug.summary/1",
    name: options.name,
    method,
    counts: {
      incidents: aggregation.rows.length,
      scoredIncidents: n,
      attempts: aggregation.attemptRecords,
      countedAttempts: counted,
      failedAttempts: failed,
      infraErrors,
      interrupted,
      missingAttempts: aggregation.missing.length,
      attemptsPerIncident: aggregation.attemptsPerIncident,
    },
    complete: infraErrors === 0 && interrupted === 0 && aggregation.missing.length === 0,
    conventions: [...CONVENTIONS],
    metrics,
    usage: {
      tokensPerRun: perRun((usage) => usage.inputTokens + usage.outputTokens),
      inputTokensPerRun: perRun((usage) => usage.inputTokens),
      outputTokensPerRun: perRun((usage) => usage.outputTokens),
      cachedTokensPerRun: perRun((usage) => usage.cachedTokens),
      callsPerRun: perRun((usage) => usage.calls),
      costPerRunUsd:
        usages.length === 0 || usages.some((usage) => usage.costUsd === null)
          ? null
          : perRun((usage) => usage.costUsd ?? 0),
      totalTokens: aggregation.totalTokens,
      totalCostUsd: aggregation.totalCostUsd,
    },
    subgroups: [],
    subgroupDifferences: [],
    incidents: aggregation.rows.map((row) => ({
      id: row.incident.id,
      attempts: row.scores.size,
      failed: row.failed,
      ...(row.means ? { metrics: { ...row.means } } : {}),
    })),
    missing: aggregation.missing,
    rerun: aggregation.rerun,
  };
  if (options.attempts.some((attempt) => attempt.search)) {
    const search = searchSummary({ scored, attempts: options.attempts, plan, interval });
    summary.search = search.summary;
    const shares = new Map(scored.map((row, i) => [row.incident.id, search.perIncident[i]]));
    summary.incidents = summary.incidents.map((incident) => {
      const value = shares.get(incident.id);
      return value ? { ...incident, search: { ...value } } : incident;
    });
  }
  const file = results.get("fileCoverage");
  const block = results.get("blockCoverage");
  if (file && block)
    summary.localizationGap = pairedDifference(
      values.get("fileCoverage") ?? [],
      file.replicates,
      values.get("blockCoverage") ?? [],
      block.replicates,
      interval,
    ).difference;
  if (options.subgroups ?? true) {
    const tables = subgroupTables(scored, {
      ...interval,
      seed: method.seed,
      resamples: method.resamples,
    });
    summary.subgroups = tables.subgroups;
    summary.subgroupDifferences = tables.subgroupDifferences;
  }
  const variation = {} as NonNullable<Summary["runToRun"]>;
  let hasVariation = true;
  for (const metric of METRIC_NAMES) {
    const value = runToRun(scored, aggregation.attemptsPerIncident, metric);
    if (!value) hasVariation = false;
    else variation[metric] = value;
  }
  if (hasVariation) summary.runToRun = variation;
  return orderKeys(summary);
}

/** Rebuilds the summary in the schema's key order, so the serialized bytes never depend on assignment order. */
function orderKeys(summary: Summary): Summary {
  const { localizationGap, runToRun: variation, search, ...rest } = summary;
  return {
    format: rest.format,
    name: rest.name,
    method: rest.method,
    counts: rest.counts,
    complete: rest.complete,
    conventions: rest.conventions,
    metrics: rest.metrics,
    usage: rest.usage,
    ...(localizationGap ? { localizationGap } : {}),
    subgroups: rest.subgroups,
    subgroupDifferences: rest.subgroupDifferences,
    ...(search ? { search } : {}),
    ...(variation ? { runToRun: variation } : {}),
    incidents: rest.incidents,
    missing: rest.missing,
    rerun: rest.rerun,
  };
}
