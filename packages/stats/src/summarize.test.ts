import { parseSummary, type Summary, serialize } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import {
  type DataSet,
  loadDataSet,
  monteCarloTolerance,
  type ScipyEndpoints,
} from "../fixtures/load.js";
import { METRIC_NAMES } from "./aggregate.js";
import { type SummarizeOptions, summarize } from "./summarize.js";

const sets = {
  main: loadDataSet("main-120"),
  missing: loadDataSet("missing"),
  zero: loadDataSet("all-zero"),
  one: loadDataSet("all-one"),
  two: loadDataSet("two-incidents"),
};

/** One incident with one gold block, for the rule tests. */
const incident = {
  id: "x-1",
  system: "x",
  languages: ["go" as const],
  category: "logic" as const,
  clues: { reportNamesCausalMethod: false, usableStackTrace: false },
  goldBlocks: 1,
};

function run(set: DataSet, extra: Partial<SummarizeOptions> = {}): Summary {
  return summarize({
    name: set.name,
    attempts: set.attempts,
    incidents: set.incidents,
    attemptsPerIncident: set.attemptsPerIncident,
    seed: 1,
    ...extra,
  });
}

const bySet = new Map<DataSet, { percentile: Summary; bca: Summary }>();
function summaries(set: DataSet) {
  let entry = bySet.get(set);
  if (!entry) {
    entry = { percentile: run(set), bca: run(set, { method: "bca", subgroups: false }) };
    bySet.set(set, entry);
  }
  return entry;
}

function expectWithinMonteCarlo(actual: { low: number; high: number }, scipy: ScipyEndpoints) {
  expect(Math.abs(actual.low - scipy.low)).toBeLessThanOrEqual(
    monteCarloTolerance(scipy.lowSd, scipy.repeats),
  );
  expect(Math.abs(actual.high - scipy.high)).toBeLessThanOrEqual(
    monteCarloTolerance(scipy.highSd, scipy.repeats),
  );
}

describe.each(Object.entries(sets))("summarize on the %s reference set", (_, set) => {
  it("gives the reference mean exactly and the analytic SE to 1e-12", () => {
    const { percentile } = summaries(set);
    expect(percentile.metrics.blockCoverage.n).toBe(set.reference.n);
    for (const metric of METRIC_NAMES) {
      const reference = set.reference.metrics[metric];
      expect(percentile.metrics[metric].mean).toBe(reference.mean);
      expect(Math.abs(percentile.metrics[metric].mean - reference.numpyMean)).toBeLessThanOrEqual(
        1e-15,
      );
      expect(Math.abs(percentile.metrics[metric].se - reference.se)).toBeLessThanOrEqual(1e-12);
    }
    for (const incident of percentile.incidents) {
      const reference = set.reference.incidentMeans[incident.id];
      if (reference) expect(incident.metrics).toEqual(reference);
      else expect(incident.metrics).toBeUndefined();
    }
    expect(percentile.missing).toEqual(set.reference.missing);
  });

  it("matches the Python replica of the resample plan to rounding (percentile and BCa)", () => {
    const { percentile, bca } = summaries(set);
    for (const metric of METRIC_NAMES) {
      const plan = set.reference.metrics[metric].plan;
      if (!plan) continue;
      const constant = plan.percentile.low === plan.percentile.high;
      expect(Math.abs(percentile.metrics[metric].low - plan.percentile.low)).toBeLessThanOrEqual(
        1e-12,
      );
      expect(Math.abs(percentile.metrics[metric].high - plan.percentile.high)).toBeLessThanOrEqual(
        1e-12,
      );
      if (constant) continue; // scipy's BCa is undefined (NaN) on constant data; ours is [mean, mean]
      expect(Math.abs(bca.metrics[metric].low - plan.bca.low)).toBeLessThanOrEqual(1e-12);
      expect(Math.abs(bca.metrics[metric].high - plan.bca.high)).toBeLessThanOrEqual(1e-12);
    }
  });

  it("matches scipy.stats.bootstrap endpoints within the Monte-Carlo tolerance (4 SD of the difference)", () => {
    const { percentile, bca } = summaries(set);
    for (const metric of METRIC_NAMES) {
      const scipy = set.reference.metrics[metric].scipy;
      if (!scipy) continue;
      expectWithinMonteCarlo(percentile.metrics[metric], scipy.percentile);
      expectWithinMonteCarlo(bca.metrics[metric], scipy.bca);
    }
    const gap = set.reference.localizationGap;
    if (gap && percentile.localizationGap) {
      expect(percentile.localizationGap.mean).toBe(gap.mean);
      expect(Math.abs(percentile.localizationGap.se - gap.se)).toBeLessThanOrEqual(1e-12);
      expectWithinMonteCarlo(percentile.localizationGap, gap.scipy.percentile);
    }
  });

  it("reports run-to-run variation like the numpy reference", () => {
    const { percentile } = summaries(set);
    const reference = set.reference.runToRun;
    if (!reference) return expect(percentile.runToRun).toBeUndefined();
    for (const metric of METRIC_NAMES) {
      const actual = percentile.runToRun?.[metric];
      expect(actual?.perRun).toEqual(reference[metric].perRun);
      expect(Math.abs((actual?.sd ?? Number.NaN) - reference[metric].sd)).toBeLessThanOrEqual(
        1e-12,
      );
      expect(
        Math.abs((actual?.withinIncidentSd ?? Number.NaN) - reference[metric].withinIncidentSd),
      ).toBeLessThanOrEqual(1e-12);
      expect(
        Math.abs((actual?.noiseShare ?? Number.NaN) - reference[metric].noiseShare),
      ).toBeLessThanOrEqual(1e-12);
    }
  });

  it("writes a valid summary.json", () => {
    const { percentile } = summaries(set);
    expect(parseSummary(serialize(percentile), { source: "summary.json" })).toEqual(percentile);
  });
});

describe("summarize counting rules", () => {
  it("counts failed attempts as 0 and lists infra errors, interrupted and missing attempts", () => {
    const summary = summaries(sets.missing).percentile;
    const attempts = sets.missing.attempts;
    expect(summary.counts.infraErrors).toBe(
      attempts.filter((a) => a.status === "infra-error").length,
    );
    expect(summary.counts.interrupted).toBe(
      attempts.filter((a) => a.status === "interrupted").length,
    );
    expect(summary.rerun.map((entry) => entry.status).sort()).toEqual([
      "infra-error",
      "interrupted",
    ]);
    expect(summary.counts.failedAttempts).toBe(
      attempts.filter(
        (a) =>
          a.status === "agent-error" ||
          a.status === "limit-exceeded" ||
          (a.status === "succeeded" && !a.metrics),
      ).length,
    );
    expect(summary.counts.missingAttempts).toBe(summary.missing.length);
    expect(summary.counts.incidents).toBe(40);
    expect(summary.counts.scoredIncidents).toBe(39);
    expect(summary.complete).toBe(false);
    expect(summaries(sets.zero).percentile.complete).toBe(true);
  });

  it("scores a limit-exceeded attempt 0 even when it has metrics, and a succeeded attempt without metrics 0", () => {
    const usage = { inputTokens: 10, outputTokens: 5, cachedTokens: 0, calls: 1, costUsd: 0.5 };
    const full = { blockCoverage: 1, blockPrecision: 1, fileCoverage: 1, linePrecision: 1 };
    const summary = summarize({
      name: "rules",
      incidents: [incident],
      attempts: [
        { incidentId: "x-1", attempt: 1, status: "succeeded", usage, metrics: full },
        { incidentId: "x-1", attempt: 2, status: "limit-exceeded", usage, metrics: full },
        { incidentId: "x-1", attempt: 3, status: "succeeded", usage },
      ],
    });
    expect(summary.metrics.blockCoverage.mean).toBe(1 / 3);
    expect(summary.incidents[0]).toEqual({
      id: "x-1",
      attempts: 3,
      failed: 2,
      metrics: {
        blockCoverage: 1 / 3,
        blockPrecision: 1 / 3,
        fileCoverage: 1 / 3,
        linePrecision: 1 / 3,
      },
    });
    expect(summary.usage.tokensPerRun).toBe(15);
    expect(summary.usage.costPerRunUsd).toBe(0.5);
    expect(summary.usage.totalCostUsd).toBe(1.5);
    expect(summary.conventions.join(" ")).toContain("names no code is 0");
  });

  it("counts an offline attempt (no model calls, cost unknown) as $0, so offline agents agree on cost/run", () => {
    const metrics = { blockCoverage: 1, blockPrecision: 1, fileCoverage: 1, linePrecision: 1 };
    const offline = (costUsd: number | null) =>
      summarize({
        name: "offline",
        incidents: [incident],
        attempts: [1, 2].map((attempt) => ({
          incidentId: "x-1",
          attempt,
          status: "succeeded" as const,
          usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd },
          metrics,
        })),
      }).usage;
    // The baseline records $0, a command agent that never called the gateway records null.
    expect(offline(0)).toEqual(offline(null));
    expect(offline(null).costPerRunUsd).toBe(0);
    expect(offline(null).totalCostUsd).toBe(0);
  });

  it("rejects an attempt of an unknown incident and out-of-range scores, naming the path", () => {
    const set = sets.two;
    expect(() =>
      summarize({
        name: "bad",
        incidents: set.incidents,
        attempts: [{ ...set.attempts[0]!, incidentId: "nope-1" }],
      }),
    ).toThrow(/attempts\[0\]\.incidentId: incident "nope-1" is not in the incidents list/);
    const metrics = { blockCoverage: 1.5, blockPrecision: 0, fileCoverage: 0, linePrecision: 0 };
    expect(() =>
      summarize({
        name: "bad",
        incidents: set.incidents,
        attempts: [{ ...set.attempts[0]!, status: "succeeded", metrics }],
      }),
    ).toThrow(/attempts\[0\]\.metrics\.blockCoverage: expected a share from 0 to 1/);
  });
});

describe("summarize determinism", () => {
  it("gives byte-identical summary.json for the same input and seed", () => {
    const set = sets.main;
    const a = serialize(run(set, { seed: 12345 }));
    const b = serialize(
      run(
        { ...set, attempts: [...set.attempts].reverse(), incidents: [...set.incidents].reverse() },
        { seed: 12345 },
      ),
    );
    expect(b).toBe(a);
  });

  it("moves the endpoints by less than 0.3 points at n = 120 under another seed", () => {
    const base = summaries(sets.main).percentile;
    for (const seed of [2, 777, 4_000_000_000]) {
      const other = run(sets.main, { seed, subgroups: false });
      expect(serialize(other)).not.toBe(serialize(base));
      for (const metric of METRIC_NAMES) {
        expect(Math.abs(other.metrics[metric].low - base.metrics[metric].low) * 100).toBeLessThan(
          0.3,
        );
        expect(Math.abs(other.metrics[metric].high - base.metrics[metric].high) * 100).toBeLessThan(
          0.3,
        );
        expect(other.metrics[metric].mean).toBe(base.metrics[metric].mean);
      }
    }
  });

  it("records the method metadata", () => {
    const summary = summaries(sets.two).bca;
    expect(summary.method).toEqual({
      seed: 1,
      resamples: 10_000,
      method: "bca",
      rng: expect.stringContaining("xoshiro128**"),
      quantile: expect.stringContaining("R-7"),
      confidence: 0.95,
      version: expect.stringMatching(/^@distdebug\/stats \d+\.\d+\.\d+$/),
    });
  });
});
