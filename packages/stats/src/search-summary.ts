import {
  type Quartiles,
  type SearchCost,
  SearchOutcome,
  type SearchPath,
  type SearchSummary,
} from "@distdebug/schema";
import type { AttemptRecord, IncidentRow } from "./aggregate.js";
import { bootstrapMean, type IntervalOptions } from "./bootstrap.js";
import { exactMean } from "./internal/exact-sum.js";
import { quantileR7 } from "./quantile.js";
import type { ResamplePlan } from "./resample-plan.js";

/** The outcome classes in their fixed order. */
export const SEARCH_OUTCOMES: readonly SearchOutcome[] = SearchOutcome.options;

/** Per outcome class, the share of an attempt's gold blocks in it. */
export type OutcomeShares = Record<SearchOutcome, number>;

/**
 * An attempt's outcome shares: from its search path, or, without one, its block coverage as
 * `named` and the rest `unknown` (an attempt without observations says nothing about its search).
 */
export function attemptOutcomeShares(attempt: AttemptRecord | undefined): OutcomeShares {
  const shares = Object.fromEntries(SEARCH_OUTCOMES.map((o) => [o, 0])) as OutcomeShares;
  const blocks = attempt?.search?.blocks ?? [];
  if (blocks.length === 0) {
    const named = attempt?.status === "succeeded" ? (attempt.metrics?.blockCoverage ?? 0) : 0;
    shares.named = named;
    shares.unknown = 1 - named;
    return shares;
  }
  for (const block of blocks) shares[block.outcome] += 1 / blocks.length;
  return shares;
}

/** Each scored incident's mean outcome shares over its counted attempts. */
export function incidentOutcomeShares(
  scored: readonly IncidentRow[],
  byKey: ReadonlyMap<string, AttemptRecord>,
): OutcomeShares[] {
  return scored.map((row) => {
    const attempts = [...row.scores.keys()].map((k) =>
      attemptOutcomeShares(byKey.get(`${row.incident.id}\u0000${k}`)),
    );
    return Object.fromEntries(
      SEARCH_OUTCOMES.map((o) => [o, exactMean(attempts.map((shares) => shares[o]))]),
    ) as OutcomeShares;
  });
}

function quartiles(values: number[]): Quartiles | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    q1: quantileR7(sorted, 0.25),
    median: quantileR7(sorted, 0.5),
    q3: quantileR7(sorted, 0.75),
  };
}

function cost(paths: readonly SearchPath[], target: "File" | "Block"): SearchCost {
  const reached = paths.filter((path) => path[`firstCausal${target}Step`] !== null);
  const tokens = reached.flatMap((path) => {
    const value = path[`tokensToFirstCausal${target}`];
    return value === null ? [] : [value];
  });
  return {
    attempts: reached.length,
    steps: quartiles(reached.map((path) => path[`firstCausal${target}Step`] ?? 0)),
    tokens: quartiles(tokens),
  };
}

/**
 * The search path of a configuration: the share of gold blocks per outcome class with the
 * incident bootstrap on the shared plan, and the quartiles of steps and tokens to the first
 * causal file and block over the counted attempts that reached them.
 */
export function searchSummary(options: {
  scored: readonly IncidentRow[];
  attempts: readonly AttemptRecord[];
  plan: ResamplePlan | undefined;
  interval: IntervalOptions;
}): { summary: SearchSummary; perIncident: OutcomeShares[] } {
  const byKey = new Map(options.attempts.map((a) => [`${a.incidentId}\u0000${a.attempt}`, a]));
  const perIncident = incidentOutcomeShares(options.scored, byKey);
  const shares = {} as SearchSummary["shares"];
  for (const outcome of SEARCH_OUTCOMES)
    shares[outcome] = options.plan
      ? bootstrapMean(
          perIncident.map((row) => row[outcome]),
          options.plan,
          options.interval,
        ).estimate
      : { mean: 0, low: 0, high: 0, se: 0, n: 0 };
  const paths = options.scored.flatMap((row) =>
    [...row.scores.keys()].flatMap((k) => {
      const search = byKey.get(`${row.incident.id}\u0000${k}`)?.search;
      return search?.observed ? [search] : [];
    }),
  );
  return {
    summary: {
      shares,
      observedAttempts: paths.length,
      toFirstCausalFile: cost(paths, "File"),
      toFirstCausalBlock: cost(paths, "Block"),
    },
    perIncident,
  };
}
