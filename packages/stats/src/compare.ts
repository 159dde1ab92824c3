import { DistDebugError, type Estimate, type StatsMethod, type Summary } from "@distdebug/schema";
import {
  type AttemptRecord,
  aggregateAttempts,
  type IncidentRecord,
  METRIC_NAMES,
  type MetricName,
} from "./aggregate.js";
import {
  bootstrapMean,
  correlation,
  type Difference,
  type MeanResult,
  pairedDifference,
  sampleSd,
} from "./bootstrap.js";
import { type MethodOptions, resolveMethod } from "./method.js";
import { powerAnalysis } from "./power.js";
import { type ResamplePlan, sharedResamplePlan } from "./resample-plan.js";
import { incidentOutcomeShares } from "./search-summary.js";

/** One configuration to compare: its summary, or its attempt set. */
export type CompareInput =
  | Summary
  | {
      name: string;
      attempts: readonly AttemptRecord[];
      incidents: readonly IncidentRecord[];
      attemptsPerIncident?: number;
    };

/** Options of {@link compare}. */
export interface CompareOptions extends MethodOptions {
  /** Two or more configurations with distinct names. */
  configs: readonly CompareInput[];
  /** Metrics to compare. Default all four. */
  metrics?: readonly MetricName[];
  /** Which pairs: every pair (default) or each configuration against the first. */
  pairs?: "all" | "first";
  /** Differences (0-1 scale) to report incidents needed for. Default [0.02, 0.05, 0.1]. */
  powerDeltas?: readonly number[];
}

/** One paired comparison a - b on one metric. */
export interface PairComparison {
  a: string;
  b: string;
  metric: MetricName;
  difference: Difference;
  /** Pearson correlation of the two configurations' incident values; null without spread. */
  correlation: number | null;
  power: {
    /** SD of the incident differences. */
    sd: number;
    /** With 80% power at alpha 0.05 and the current n. */
    minimumDetectableEffect: number;
    incidentsNeeded: { delta: number; incidents: number | null }[];
  };
}

/** Rank probabilities of every configuration on one metric (rank 1 is best; tied configurations share their ranks evenly). */
export interface RankTable {
  metric: MetricName;
  configs: { name: string; probabilities: number[]; pBest: number; expectedRank: number }[];
}

/** Result of {@link compare}. */
export interface Comparison {
  method: StatsMethod;
  metrics: MetricName[];
  /** Incidents scored by every configuration, sorted; the comparison's n. */
  incidents: string[];
  /** Incidents scored by some configurations only: left out of the comparison. */
  excludedIncidents: string[];
  /** Each configuration's figures on the common incidents and the shared plan. */
  configs: {
    name: string;
    metrics: Partial<Record<MetricName, Estimate>>;
    localizationGap?: Difference;
  }[];
  pairs: PairComparison[];
  ranks: RankTable[];
  /**
   * Paired differences a - b in the share of gold blocks shown but not named (the search path),
   * on the same pairs as `pairs`; absent unless every configuration has search paths.
   */
  shownNotNamed?: { a: string; b: string; difference: Difference }[];
}

function isSummary(input: CompareInput): input is Summary {
  return "format" in input && input.format === "distdebug.summary/1";
}

function incidentValues(input: CompareInput): {
  name: string;
  values: Map<string, Record<MetricName, number>>;
  /** Per incident, the share of gold blocks shown but not named; undefined without search paths. */
  shownNotNamed: Map<string, number> | undefined;
} {
  const values = new Map<string, Record<MetricName, number>>();
  let shownNotNamed: Map<string, number> | undefined;
  if (isSummary(input)) {
    for (const incident of input.incidents)
      if (incident.metrics) values.set(incident.id, incident.metrics);
    if (input.search)
      shownNotNamed = new Map(
        input.incidents.flatMap((incident) =>
          incident.search ? [[incident.id, incident.search["shown-not-named"]] as const] : [],
        ),
      );
  } else {
    const aggregation = aggregateAttempts(
      input.attempts,
      input.incidents,
      input.attemptsPerIncident,
    );
    for (const row of aggregation.scored) if (row.means) values.set(row.incident.id, row.means);
    if (input.attempts.some((attempt) => attempt.search)) {
      const byKey = new Map(input.attempts.map((a) => [`${a.incidentId}\u0000${a.attempt}`, a]));
      const shares = incidentOutcomeShares(aggregation.scored, byKey);
      shownNotNamed = new Map(
        aggregation.scored.map((row, i) => [row.incident.id, shares[i]?.["shown-not-named"] ?? 0]),
      );
    }
  }
  return { name: input.name, values, shownNotNamed };
}

/** The paired differences in the shown-not-named share, when every configuration has it. */
function shownNotNamedPairs(
  configs: readonly ReturnType<typeof incidentValues>[],
  incidents: readonly string[],
  plan: ResamplePlan,
  interval: Interval,
  firstOnly: boolean,
): Comparison["shownNotNamed"] {
  if (configs.some((config) => !config.shownNotNamed)) return undefined;
  const values = configs.map((config) => incidents.map((id) => config.shownNotNamed?.get(id) ?? 0));
  const results = values.map((list) => bootstrapMean(list, plan, interval));
  const pairs: NonNullable<Comparison["shownNotNamed"]> = [];
  configs.forEach((first, i) => {
    if (firstOnly && i !== 0) return;
    configs.slice(i + 1).forEach((second, offset) => {
      const j = i + 1 + offset;
      const { difference } = pairedDifference(
        values[i] ?? [],
        results[i]?.replicates ?? new Float64Array(0),
        values[j] ?? [],
        results[j]?.replicates ?? new Float64Array(0),
        interval,
      );
      pairs.push({ a: first.name, b: second.name, difference });
    });
  });
  return pairs;
}

/**
 * Compares configurations on the incidents they all scored, with one shared resample plan:
 * per-configuration figures, paired differences (CI, P(delta <= 0), correlation, power and
 * minimum detectable effect) and rank probabilities.
 *
 * @example
 * ```ts
 * const comparison = compare({ configs: [summaryA, summaryB], seed: 1 });
 * comparison.pairs[0]?.difference; // { mean, low, high, se, n, pAtMostZero }
 * ```
 */
export function compare(options: CompareOptions): Comparison {
  const method = resolveMethod(options);
  const interval = { method: method.method, confidence: method.confidence };
  const metrics = [...(options.metrics ?? METRIC_NAMES)];
  const configs = options.configs.map(incidentValues);
  checkConfigs(configs);
  const { incidents, excludedIncidents } = commonIncidents(configs);
  const plan = sharedResamplePlan({
    size: incidents.length,
    resamples: method.resamples,
    seed: method.seed,
  });
  const figures: ConfigFigures[] = configs.map((config) => {
    const values = valuesOn(config, incidents, metrics);
    const results = new Map<MetricName, MeanResult>();
    for (const [metric, list] of values) results.set(metric, bootstrapMean(list, plan, interval));
    return { name: config.name, values, results };
  });
  const firstOnly = (options.pairs ?? "all") === "first";
  const shownNotNamed = shownNotNamedPairs(configs, incidents, plan, interval, firstOnly);
  return {
    method,
    metrics,
    incidents,
    excludedIncidents,
    configs: figures.map((config) => configFigures(config, metrics, interval)),
    pairs: pairComparisons(figures, metrics, interval, {
      n: incidents.length,
      deltas: options.powerDeltas ?? [0.02, 0.05, 0.1],
      firstOnly,
    }),
    ranks: metrics.map((metric) => rankTable(metric, figures, method.resamples)),
    ...(shownNotNamed ? { shownNotNamed } : {}),
  };
}

/** One configuration's per-incident values on the common incidents and their bootstrap results. */
interface ConfigFigures {
  name: string;
  values: Map<MetricName, number[]>;
  results: Map<MetricName, MeanResult>;
}

type Interval = Parameters<typeof bootstrapMean>[2];

/** Refuses duplicate configuration names and an empty list. */
function checkConfigs(configs: readonly { name: string }[]): void {
  const names = new Set<string>();
  configs.forEach((config, index) => {
    if (names.has(config.name))
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `configs[${index}].name: duplicate configuration name "${config.name}"; names must be distinct`,
        data: { path: `configs[${index}].name`, found: config.name },
      });
    names.add(config.name);
  });
  if (configs.length < 1)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: "configs: expected at least one configuration",
      data: { path: "configs" },
    });
}

/** The incidents every configuration scored (sorted) and the ones only some did. */
function commonIncidents(configs: readonly ReturnType<typeof incidentValues>[]): {
  incidents: string[];
  excludedIncidents: string[];
} {
  const all = new Set<string>();
  for (const config of configs) for (const id of config.values.keys()) all.add(id);
  const sortedAll = [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const inAll = (id: string) => configs.every((config) => config.values.has(id));
  const incidents = sortedAll.filter(inAll);
  if (incidents.length === 0)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: "configs: no incident is scored by every configuration; nothing to compare",
      data: { path: "configs" },
    });
  return { incidents, excludedIncidents: sortedAll.filter((id) => !inAll(id)) };
}

/** A configuration's values on the incidents, per metric (file and block coverage always, for the gap). */
function valuesOn(
  config: ReturnType<typeof incidentValues>,
  incidents: readonly string[],
  metrics: readonly MetricName[],
): Map<MetricName, number[]> {
  const byMetric = new Map<MetricName, number[]>();
  for (const metric of new Set<MetricName>([...metrics, "fileCoverage", "blockCoverage"]))
    byMetric.set(
      metric,
      incidents.map((id) => config.values.get(id)?.[metric] ?? 0),
    );
  return byMetric;
}

/** A configuration's estimates and its localization gap (file minus block coverage). */
function configFigures(
  config: ConfigFigures,
  metrics: readonly MetricName[],
  interval: Interval,
): Comparison["configs"][number] {
  const estimates: Partial<Record<MetricName, Estimate>> = {};
  for (const metric of metrics) {
    const result = config.results.get(metric);
    if (result) estimates[metric] = result.estimate;
  }
  const file = config.results.get("fileCoverage");
  const block = config.results.get("blockCoverage");
  const entry: Comparison["configs"][number] = { name: config.name, metrics: estimates };
  if (file && block)
    entry.localizationGap = pairedDifference(
      config.values.get("fileCoverage") ?? [],
      file.replicates,
      config.values.get("blockCoverage") ?? [],
      block.replicates,
      interval,
    ).difference;
  return entry;
}

/** Paired differences of every pair (or of the first configuration with each other) on every metric. */
function pairComparisons(
  figures: readonly ConfigFigures[],
  metrics: readonly MetricName[],
  interval: Interval,
  power: { n: number; deltas: readonly number[]; firstOnly: boolean },
): PairComparison[] {
  const pairs: PairComparison[] = [];
  figures.forEach((first, i) => {
    if (power.firstOnly && i !== 0) return;
    for (const second of figures.slice(i + 1))
      for (const metric of metrics) {
        const pair = pairComparison(first, second, metric, interval, power);
        if (pair) pairs.push(pair);
      }
  });
  return pairs;
}

/** One pair on one metric: the paired difference, correlation and power figures. */
function pairComparison(
  first: ConfigFigures,
  second: ConfigFigures,
  metric: MetricName,
  interval: Interval,
  power: { n: number; deltas: readonly number[] },
): PairComparison | undefined {
  const a = first.values.get(metric) ?? [];
  const b = second.values.get(metric) ?? [];
  const ra = first.results.get(metric);
  const rb = second.results.get(metric);
  if (!ra || !rb) return undefined;
  const { difference, differences } = pairedDifference(
    a,
    ra.replicates,
    b,
    rb.replicates,
    interval,
  );
  const sd = sampleSd(differences);
  return {
    a: first.name,
    b: second.name,
    metric,
    difference,
    correlation: correlation(a, b),
    power: {
      sd,
      minimumDetectableEffect: powerAnalysis({ sd, n: power.n }).minimumDetectableEffect ?? 0,
      incidentsNeeded: power.deltas.map((delta) => ({
        delta,
        incidents: powerAnalysis({ sd, delta }).incidentsNeeded,
      })),
    },
  };
}

/** Rank probabilities on one metric over the shared resamples. */
function rankTable(
  metric: MetricName,
  figures: readonly ConfigFigures[],
  resamples: number,
): RankTable {
  const replicates = figures.map(
    (config) => config.results.get(metric)?.replicates ?? new Float64Array(0),
  );
  const k = figures.length;
  const counts = new Float64Array(k * k); // counts[c * k + rank]
  const row = new Float64Array(k);
  for (let b = 0; b < resamples; b++) {
    for (let c = 0; c < k; c++) row[c] = (replicates[c] as Float64Array)[b]!;
    for (let c = 0; c < k; c++) addRanks(counts, row, c);
  }
  return {
    metric,
    configs: figures.map((config, c) => {
      const probabilities = Array.from(
        counts.subarray(c * k, c * k + k),
        (count) => count / resamples,
      );
      return {
        name: config.name,
        probabilities,
        pBest: probabilities[0] ?? 0,
        expectedRank: probabilities.reduce((sum, p, r) => sum + p * (r + 1), 0),
      };
    }),
  };
}

/** Counts configuration `c`'s rank in one resample; tied configurations share their ranks evenly. */
function addRanks(counts: Float64Array, row: Float64Array, c: number): void {
  const k = row.length;
  const value = row[c]!;
  let greater = 0;
  let equal = 0;
  for (let other = 0; other < k; other++) {
    const otherValue = row[other]!;
    if (otherValue > value) greater++;
    else if (otherValue === value) equal++;
  }
  // `equal` counts this configuration too.
  const base = c * k;
  if (equal === 1) counts[base + greater]!++;
  else for (let rank = greater; rank < greater + equal; rank++) counts[base + rank]! += 1 / equal;
}
