/**
 * The numbers on the leaderboard: incident-weighted means, incident bootstrap confidence intervals,
 * paired comparisons, subgroups, the localization gap and run-to-run variation.
 *
 * @packageDocumentation
 * @module @distdebug/stats
 */
export {
  type Aggregation,
  type AttemptRecord,
  aggregateAttempts,
  type IncidentRecord,
  type IncidentRow,
  METRIC_NAMES,
  type MetricName,
} from "./aggregate.js";
export {
  acceleration,
  bootstrapMean,
  type Difference,
  type IntervalInput,
  type IntervalMethod,
  type IntervalOptions,
  type MeanResult,
  pairedDifference,
  stratifiedDifference,
} from "./bootstrap.js";
export {
  type CompareInput,
  type CompareOptions,
  type Comparison,
  compare,
  type PairComparison,
  type RankTable,
} from "./compare.js";
export {
  type FormatEstimateOptions,
  formatCostUsd,
  formatEstimate,
  formatPoints,
  formatTokens,
} from "./format.js";
export { type MethodOptions, STATS_VERSION } from "./method.js";
export { normalCdf, normalQuantile } from "./normal.js";
export { type PowerOptions, type PowerResult, powerAnalysis } from "./power.js";
export { quantileR7 } from "./quantile.js";
export {
  createResamplePlan,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  type ResamplePlan,
  type ResamplePlanOptions,
} from "./resample-plan.js";
export { type RunToRun, runToRun } from "./run-to-run.js";
export {
  groupsOf,
  SUBGROUP_FACETS,
  type SubgroupFacet,
  type SubgroupOptions,
  subgroupTables,
} from "./subgroups.js";
export { CONVENTIONS, type SummarizeOptions, summarize } from "./summarize.js";
