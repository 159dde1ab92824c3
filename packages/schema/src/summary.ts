import { z } from "zod";
import { formatTag } from "./common.js";
import { SearchOutcome } from "./search-path.js";

/** The four headline metrics the stats package aggregates; every one a share in [0, 1]. */
export const MetricName = z.enum([
  "blockCoverage",
  "blockPrecision",
  "fileCoverage",
  "linePrecision",
]);
/** One of the four aggregated metrics. */
export type MetricName = z.infer<typeof MetricName>;

/** How an interval was computed; recorded beside every figure. */
export const StatsMethod = z.strictObject({
  /** Seed of the resample plan, an unsigned 32-bit integer. */
  seed: z.number().int().min(0).max(0xffffffff),
  /** Bootstrap resamples B. */
  resamples: z.number().int().min(1),
  /** `percentile` (default) or `bca` (bias-corrected and accelerated, jackknife over incidents). */
  method: z.enum(["percentile", "bca"]),
  /** The generator, for example `xoshiro128** seeded by splitmix32; rejection-sampled indices`. */
  rng: z.string(),
  /** The quantile rule, for example `R-7 (linear interpolation)`. */
  quantile: z.string(),
  /** Two-sided confidence level, 0.95 by default. */
  confidence: z.number().gt(0).lt(1),
  /** The stats package that computed the figures, for example `@distdebug/stats 0.1.0`. */
  version: z.string(),
});
/** How an interval was computed. */
export type StatsMethod = z.infer<typeof StatsMethod>;

/**
 * A mean with its bootstrap confidence interval and its analytic clustered standard error
 * (sd of incident values / sqrt(n)); 0-1 scale. `n` is the number of incidents.
 */
export const Estimate = z.strictObject({
  mean: z.number(),
  low: z.number(),
  high: z.number(),
  se: z.number().min(0),
  n: z.number().int().min(0),
});
/** A mean with its confidence interval. */
export type Estimate = z.infer<typeof Estimate>;

/** A difference (an {@link Estimate} of a delta) with the bootstrap probability that delta <= 0. */
export const Difference = Estimate.extend({
  /** Share of bootstrap replicates with delta <= 0. */
  pAtMostZero: z.number().min(0).max(1),
});
/** A difference with P(delta <= 0). */
export type Difference = z.infer<typeof Difference>;

/** The facets subgroups are cut by. `multipleBlocks`: the gold diagnosis has more than one block. */
export const SubgroupFacet = z.enum([
  "system",
  "language",
  "category",
  "reportNamesCausalMethod",
  "usableStackTrace",
  "multipleBlocks",
]);
/** A subgroup facet. */
export type SubgroupFacet = z.infer<typeof SubgroupFacet>;

/** Run-to-run variation of one metric. */
export const RunToRun = z.strictObject({
  /** Mean over incidents of run k (attempt number k), k = 1..runs. */
  perRun: z.array(z.number()),
  /** Sample SD (n - 1) of `perRun`. */
  sd: z.number().min(0),
  /** Pooled within-incident SD of attempt scores. */
  withinIncidentSd: z.number().min(0),
  /** Share of the attempt-score variance due to run noise: within / (within + between). */
  noiseShare: z.number().min(0).max(1),
});
/** Run-to-run variation of one metric. */
export type RunToRun = z.infer<typeof RunToRun>;

const Count = z.number().int().min(0);

/** The first quartile, median and third quartile of a distribution (R-7 quantiles). */
export const Quartiles = z.strictObject({ q1: z.number(), median: z.number(), q3: z.number() });
/** Quartiles of a distribution. */
export type Quartiles = z.infer<typeof Quartiles>;

/** The cost of reaching the causal code, over the counted attempts that reached it. */
export const SearchCost = z.strictObject({
  /** Counted attempts whose observations showed it. */
  attempts: Count,
  /** Turns (agent actions) until it first appeared; null when no attempt reached it. */
  steps: Quartiles.nullable(),
  /** Tokens until then; null when no attempt that reached it records tokens. */
  tokens: Quartiles.nullable(),
});
/** The cost of reaching the causal code. */
export type SearchCost = z.infer<typeof SearchCost>;

/**
 * The search path of a configuration (docs/guide/metrics.md): the share of gold blocks per
 * outcome class (an attempt's share is its blocks in the class over its gold blocks; aggregated
 * like the metrics, with the same incident bootstrap), and the cost of reaching the causal code.
 */
export const SearchSummary = z.strictObject({
  shares: z.record(SearchOutcome, Estimate),
  /** Counted attempts with observations (the others' blocks not named are `unknown`). */
  observedAttempts: Count,
  toFirstCausalFile: SearchCost,
  toFirstCausalBlock: SearchCost,
});
/** The search path of a configuration. */
export type SearchSummary = z.infer<typeof SearchSummary>;

/** `summary.json`: the statistics of one results folder. Metrics are shares in [0, 1]. */
export const Summary = z.strictObject({
  format: formatTag("summary", 1),
  name: z.string(),
  method: StatsMethod,
  counts: z.strictObject({
    /** Incidents of the dataset. */
    incidents: Count,
    /** Incidents with at least one counted attempt (the n of the headline figures). */
    scoredIncidents: Count,
    /** Attempt records read. */
    attempts: Count,
    /** Attempts that enter the means: succeeded plus failed. */
    countedAttempts: Count,
    /** Agent failures (agent-error, limit-exceeded, or no diagnosis): scored 0 and counted. */
    failedAttempts: Count,
    /** Harness failures (infra-error): not counted; they block a complete summary until rerun. */
    infraErrors: Count,
    /** Interrupted attempts: not counted; they block a complete summary until rerun. */
    interrupted: Count,
    /** Expected attempts with no record at all: listed in `missing`, never imputed. */
    missingAttempts: Count,
    /** Attempts expected per incident. */
    attemptsPerIncident: Count,
  }),
  /** False while infra errors, interrupted or missing attempts remain. */
  complete: z.boolean(),
  /** The aggregation rules the figures follow, in words. */
  conventions: z.array(z.string()).default([]),
  metrics: z.record(MetricName, Estimate),
  /** Mean use per counted attempt, incidents weighted equally. */
  usage: z.strictObject({
    tokensPerRun: z.number().min(0),
    inputTokensPerRun: z.number().min(0),
    outputTokensPerRun: z.number().min(0),
    cachedTokensPerRun: z.number().min(0),
    callsPerRun: z.number().min(0),
    /** Null when some counted attempt has no known cost. */
    costPerRunUsd: z.number().min(0).nullable(),
    /** Over every attempt record, infra errors included. */
    totalTokens: z.number().min(0),
    /** Null when some attempt has no known cost. */
    totalCostUsd: z.number().min(0).nullable(),
  }),
  /** File coverage minus block coverage, paired over incidents. */
  localizationGap: Difference.optional(),
  subgroups: z
    .array(
      z.strictObject({
        facet: SubgroupFacet,
        group: z.string(),
        metric: MetricName,
        estimate: Estimate,
      }),
    )
    .default([]),
  /** Disjoint groups of a two-valued facet compared by stratified bootstrap: `groups[0]` minus `groups[1]`. */
  subgroupDifferences: z
    .array(
      z.strictObject({
        facet: SubgroupFacet,
        groups: z.tuple([z.string(), z.string()]),
        metric: MetricName,
        difference: Difference,
      }),
    )
    .default([]),
  /** The search path (present when written by a harness that computes it). */
  search: SearchSummary.optional(),
  /** Present when there are at least two runs. */
  runToRun: z.record(MetricName, RunToRun).optional(),
  incidents: z.array(
    z.strictObject({
      id: z.string(),
      /** Counted attempts. */
      attempts: Count,
      failed: Count,
      /** Incident means; absent when the incident has no counted attempt. */
      metrics: z.record(MetricName, z.number()).optional(),
      /** Incident means of the search outcome shares; absent with the metrics. */
      search: z.record(SearchOutcome, z.number()).optional(),
    }),
  ),
  missing: z
    .array(z.strictObject({ incidentId: z.string(), attempt: z.number().int().min(1) }))
    .default([]),
  /** Attempts to rerun: infra errors and interrupted attempts. */
  rerun: z
    .array(
      z.strictObject({
        incidentId: z.string(),
        attempt: z.number().int().min(1),
        status: z.enum(["infra-error", "interrupted"]),
      }),
    )
    .default([]),
});
/** `summary.json`. */
export type Summary = z.infer<typeof Summary>;
