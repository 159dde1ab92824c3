/**
 * Speed of the incident bootstrap: 20 configurations x 4 metrics x 120 incidents x 10,000
 * resamples (target: under 1 s). Prints numbers; not a test.
 *
 *   node --conditions=@distdebug/source --import tsx bench/stats/bootstrap.ts
 */
import { performance } from "node:perf_hooks";
import {
  type AttemptRecord,
  bootstrapMean,
  compare,
  createResamplePlan,
  type IncidentRecord,
  METRIC_NAMES,
  summarize,
} from "@distdebug/stats";

const CONFIGS = 20;
const INCIDENTS = 120;
const ATTEMPTS = 3;
const RESAMPLES = 10_000;

// A small deterministic generator for the synthetic data (not the stats PRNG).
let state = 0x2545f491;
function random(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
}

const systems = ["zookeeper", "hdfs", "cassandra", "etcd", "tikv", "kafka"];
const incidents: IncidentRecord[] = Array.from({ length: INCIDENTS }, (_, i) => ({
  id: `${systems[i % systems.length]}-${1000 + i}`,
  system: systems[i % systems.length]!,
  languages: [i % 6 === 3 ? "go" : i % 6 === 4 ? "rust" : "java"],
  category: (
    ["logic", "concurrency", "error-handling", "configuration", "resource", "other"] as const
  )[i % 6]!,
  clues: { reportNamesCausalMethod: random() < 0.35, usableStackTrace: random() < 0.5 },
  goldBlocks: 1 + Math.floor(random() * 3),
}));
const share = () => Math.round(random() * 6) / 6;
const configs = Array.from({ length: CONFIGS }, (_, c) => ({
  name: `config-${String(c).padStart(2, "0")}`,
  incidents,
  attempts: incidents.flatMap((incident) =>
    Array.from(
      { length: ATTEMPTS },
      (_, k): AttemptRecord => ({
        incidentId: incident.id,
        attempt: k + 1,
        status: random() < 0.08 ? "agent-error" : "succeeded",
        usage: {
          inputTokens: 100_000,
          outputTokens: 5_000,
          cachedTokens: 0,
          calls: 20,
          costUsd: 0.5,
        },
        metrics: {
          blockCoverage: share(),
          blockPrecision: share(),
          fileCoverage: share(),
          linePrecision: share(),
        },
      }),
    ),
  ),
}));
const values = configs.map(() => METRIC_NAMES.map(() => Array.from({ length: INCIDENTS }, share)));

function time(label: string, runs: number, body: () => void): void {
  body(); // warm-up
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    body();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${label.padEnd(64)} median ${median.toFixed(0).padStart(5)} ms  (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}, ${runs} runs)`,
  );
}

console.log(
  `${CONFIGS} configurations x ${METRIC_NAMES.length} metrics x ${INCIDENTS} incidents x ${RESAMPLES} resamples`,
);
time("core: shared plan + 80 bootstrap means with percentile CIs", 5, () => {
  const plan = createResamplePlan({ size: INCIDENTS, resamples: RESAMPLES, seed: 1 });
  for (const perConfig of values) for (const list of perConfig) bootstrapMean(list, plan);
});
time("core, BCa", 5, () => {
  const plan = createResamplePlan({ size: INCIDENTS, resamples: RESAMPLES, seed: 1 });
  for (const perConfig of values)
    for (const list of perConfig) bootstrapMean(list, plan, { method: "bca" });
});
time("plan alone (1.2M rejection-sampled indices)", 5, () => {
  createResamplePlan({ size: INCIDENTS, resamples: RESAMPLES, seed: 1 });
});
time("compare(): 20 configs, 190 pairs x 4 metrics, rank probabilities", 3, () => {
  compare({ configs, seed: 1, resamples: RESAMPLES });
});
time("compare(), pairs against the first only", 3, () => {
  compare({ configs, seed: 1, resamples: RESAMPLES, pairs: "first" });
});
time("20 x summarize() without subgroups", 3, () => {
  for (const config of configs)
    summarize({ ...config, seed: 1, resamples: RESAMPLES, subgroups: false });
});
time("20 x summarize() with subgroups (6 facets), plans cached", 3, () => {
  for (const config of configs) summarize({ ...config, seed: 1, resamples: RESAMPLES });
});
let coldSeed = 100;
time("1 x summarize() with subgroups, cold (new seed: plans drawn)", 3, () => {
  summarize({ ...configs[0]!, seed: coldSeed++, resamples: RESAMPLES });
});
