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
import { sharedResamplePlan } from "./resample-plan.js";

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
}

function isSummary(input: CompareInput): input is Summary {
  return "format" in input && input.format === "distdebug.summary/1";
}

function incidentValues(input: CompareInput): {
  name: string;
  values: Map<string, Record<MetricName, number>>;
} {
  const values = new Map<string, Record<MetricName, number>>();
  if (isSummary(input)) {
    for (const incident of input.incidents)
      if (incident.metrics) values.set(incident.id, incident.metrics);
  } else {
    const aggregation = aggregateAttempts(
      input.attempts,
      input.incidents,
      input.attemptsPerIncident,
    );
    for (const row of aggregation.scored) if (row.means) values.set(row.incident.id, row.means);
  }
  return { name: input.name, values };
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
  const all = new Set<string>();
  for (const config of configs) for (const id of config.values.keys()) all.add(id);
  const sortedAll = [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const incidents = sortedAll.filter((id) => configs.every((config) => config.values.has(id)));
  const excludedIncidents = sortedAll.filter(
    (id) => !configs.every((config) => config.values.has(id)),
  );
  const n = incidents.length;
  if (n === 0)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: "configs: no incident is scored by every configuration; nothing to compare",
      data: { path: "configs" },
    });
  const plan = sharedResamplePlan({ size: n, resamples: method.resamples, seed: method.seed });
  const values = configs.map((config) => {
    const byMetric = new Map<MetricName, number[]>();
    for (const metric of new Set<MetricName>([...metrics, "fileCoverage", "blockCoverage"]))
      byMetric.set(
        metric,
        incidents.map((id) => config.values.get(id)?.[metric] ?? 0),
      );
    return byMetric;
  });
  const results = values.map((byMetric) => {
    const map = new Map<MetricName, MeanResult>();
    for (const [metric, list] of byMetric) map.set(metric, bootstrapMean(list, plan, interval));
    return map;
  });
  const at = <T>(list: readonly T[], index: number): T => list[index] as T;

  const outConfigs: Comparison["configs"] = configs.map((config, k) => {
    const estimates: Partial<Record<MetricName, Estimate>> = {};
    for (const metric of metrics) {
      const result = at(results, k).get(metric);
      if (result) estimates[metric] = result.estimate;
    }
    const file = at(results, k).get("fileCoverage");
    const block = at(results, k).get("blockCoverage");
    const entry: Comparison["configs"][number] = { name: config.name, metrics: estimates };
    if (file && block)
      entry.localizationGap = pairedDifference(
        at(values, k).get("fileCoverage") ?? [],
        file.replicates,
        at(values, k).get("blockCoverage") ?? [],
        block.replicates,
        interval,
      ).difference;
    return entry;
  });

  const deltas = options.powerDeltas ?? [0.02, 0.05, 0.1];
  const pairs: PairComparison[] = [];
  for (let i = 0; i < configs.length; i++) {
    for (let j = i + 1; j < configs.length; j++) {
      if ((options.pairs ?? "all") === "first" && i !== 0) continue;
      for (const metric of metrics) {
        const a = at(values, i).get(metric) ?? [];
        const b = at(values, j).get(metric) ?? [];
        const ra = at(results, i).get(metric);
        const rb = at(results, j).get(metric);
        if (!ra || !rb) continue;
        const { difference, differences } = pairedDifference(
          a,
          ra.replicates,
          b,
          rb.replicates,
          interval,
        );
        const sd = sampleSd(differences);
        pairs.push({
          a: at(configs, i).name,
          b: at(configs, j).name,
          metric,
          difference,
          correlation: correlation(a, b),
          power: {
            sd,
            minimumDetectableEffect: powerAnalysis({ sd, n }).minimumDetectableEffect ?? 0,
            incidentsNeeded: deltas.map((delta) => ({
              delta,
              incidents: powerAnalysis({ sd, delta }).incidentsNeeded,
            })),
          },
        });
      }
    }
  }

  const ranks: RankTable[] = metrics.map((metric) => {
    const replicates = results.map((map) => map.get(metric)?.replicates ?? new Float64Array(0));
    const k = configs.length;
    const counts = new Float64Array(k * k); // counts[c * k + rank]
    const row = new Float64Array(k);
    for (let b = 0; b < method.resamples; b++) {
      for (let c = 0; c < k; c++) row[c] = at(replicates, c)[b]!;
      for (let c = 0; c < k; c++) {
        const value = row[c]!;
        let greater = 0;
        let equal = 0;
        for (let other = 0; other < k; other++) {
          const otherValue = row[other]!;
          if (otherValue > value) greater++;
          else if (otherValue === value) equal++;
        }
        // `equal` counts this configuration too: tied ones share their ranks evenly.
        const base = c * k;
        if (equal === 1) counts[base + greater]!++;
        else
          for (let rank = greater; rank < greater + equal; rank++)
            counts[base + rank]! += 1 / equal;
      }
    }
    return {
      metric,
      configs: configs.map((config, c) => {
        const probabilities = Array.from(
          counts.subarray(c * k, c * k + k),
          (count) => count / method.resamples,
        );
        return {
          name: config.name,
          probabilities,
          pBest: probabilities[0] ?? 0,
          expectedRank: probabilities.reduce((sum, p, r) => sum + p * (r + 1), 0),
        };
      }),
    };
  });

  return { method, metrics, incidents, excludedIncidents, configs: outConfigs, pairs, ranks };
}
