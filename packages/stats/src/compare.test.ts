import { serialize } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import { loadDataSet, monteCarloTolerance, type ScipyEndpoints } from "../fixtures/load.js";
import { compare } from "./compare.js";
import { powerAnalysis } from "./power.js";
import { summarize } from "./summarize.js";

const main = loadDataSet("main-120");
const other = main.other!;
const paired = main.reference.paired!;
const stratified = main.reference.stratified!;
const configs = [
  { name: main.name, attempts: main.attempts, incidents: main.incidents },
  { name: other.name, attempts: other.attempts, incidents: main.incidents },
];

function expectWithinMonteCarlo(actual: { low: number; high: number }, scipy: ScipyEndpoints) {
  expect(Math.abs(actual.low - scipy.low)).toBeLessThanOrEqual(
    monteCarloTolerance(scipy.lowSd, scipy.repeats),
  );
  expect(Math.abs(actual.high - scipy.high)).toBeLessThanOrEqual(
    monteCarloTolerance(scipy.highSd, scipy.repeats),
  );
}

describe("compare: paired comparison on the shared plan", () => {
  const percentile = compare({ configs, seed: 1, metrics: ["blockCoverage"] });
  const bca = compare({ configs, seed: 1, metrics: ["blockCoverage"], method: "bca" });
  const pair = percentile.pairs[0]!;

  it("matches the reference difference, SE, correlation and P(delta <= 0)", () => {
    expect(percentile.incidents).toHaveLength(paired.n);
    expect(pair.a).toBe("main-120");
    expect(pair.difference.mean).toBe(paired.mean);
    expect(Math.abs(pair.difference.se - paired.se)).toBeLessThanOrEqual(1e-12);
    expect(Math.abs((pair.correlation ?? Number.NaN) - paired.correlation)).toBeLessThanOrEqual(
      1e-12,
    );
    expect(Math.abs(pair.difference.low - paired.plan.percentile.low)).toBeLessThanOrEqual(1e-12);
    expect(Math.abs(pair.difference.high - paired.plan.percentile.high)).toBeLessThanOrEqual(1e-12);
    expect(pair.difference.pAtMostZero).toBe(paired.plan.pAtMostZero);
  });

  it("matches scipy's paired bootstrap within the Monte-Carlo tolerance", () => {
    expectWithinMonteCarlo(pair.difference, paired.scipy.percentile);
    expectWithinMonteCarlo(bca.pairs[0]!.difference, paired.scipy.bca);
  });

  it("reports power: minimum detectable effect and incidents needed (scipy norm.ppf reference)", () => {
    expect(Math.abs(pair.power.sd - paired.sd)).toBeLessThanOrEqual(1e-12);
    expect(
      Math.abs(pair.power.minimumDetectableEffect - paired.minimumDetectableEffect),
    ).toBeLessThanOrEqual(1e-12);
    expect(pair.power.incidentsNeeded).toEqual(
      Object.entries(paired.incidentsNeeded).map(([delta, incidents]) => ({
        delta: Number(delta),
        incidents,
      })),
    );
    expect(powerAnalysis({ sd: 0.2, delta: 0.05 }).incidentsNeeded).toBe(126);
    expect(() => powerAnalysis({ sd: 0.2, alpha: 1.5 })).toThrow(/alpha/);
  });

  it("gives the same figures from summaries as from attempt sets", () => {
    const summaries = configs.map((config) => summarize({ ...config, seed: 3, subgroups: false }));
    const fromSummaries = compare({ configs: summaries, seed: 1, metrics: ["blockCoverage"] });
    expect(serialize(fromSummaries)).toBe(serialize(percentile));
  });

  it("pairs the configurations' figures with the summary's on the same incidents and seed", () => {
    const summary = summarize({ ...configs[0]!, seed: 1, subgroups: false });
    expect(percentile.configs[0]?.metrics.blockCoverage).toEqual(summary.metrics.blockCoverage);
  });
});

describe("compare: rank probabilities", () => {
  it("sums to 1 per configuration and per rank, and puts a clearly better configuration first", () => {
    const better = {
      name: "better",
      incidents: main.incidents,
      attempts: main.attempts.map((attempt) => ({
        ...attempt,
        status: "succeeded" as const,
        metrics: { blockCoverage: 1, blockPrecision: 1, fileCoverage: 1, linePrecision: 1 },
      })),
    };
    const result = compare({ configs: [...configs, better], seed: 5, resamples: 2000 });
    for (const table of result.ranks) {
      for (const config of table.configs)
        expect(config.probabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      for (let rank = 0; rank < 3; rank++)
        expect(
          table.configs.reduce((sum, config) => sum + (config.probabilities[rank] ?? 0), 0),
        ).toBeCloseTo(1, 12);
      expect(table.configs.find((config) => config.name === "better")?.pBest).toBe(1);
    }
    expect(result.pairs).toHaveLength(3 * 4);
    expect(
      compare({ configs: [...configs, better], pairs: "first", resamples: 100 }).pairs,
    ).toHaveLength(2 * 4);
  });

  it("leaves out incidents not scored by every configuration and rejects duplicate names", () => {
    const fewer = {
      ...configs[1]!,
      attempts: other.attempts.filter((attempt) => attempt.incidentId !== main.incidents[0]!.id),
    };
    const result = compare({ configs: [configs[0]!, fewer], resamples: 100 });
    expect(result.incidents).toHaveLength(119);
    expect(result.excludedIncidents).toEqual([main.incidents[0]!.id]);
    expect(() => compare({ configs: [configs[0]!, configs[0]!] })).toThrow(
      /duplicate configuration name/,
    );
  });
});

describe("subgroups: per-group CI and stratified difference", () => {
  const summary = summarize({
    name: main.name,
    attempts: main.attempts,
    incidents: main.incidents,
    seed: 1,
  });
  const bca = summarize({
    name: main.name,
    attempts: main.attempts,
    incidents: main.incidents,
    seed: 1,
    method: "bca",
  });

  it("matches the reference group mean, SE and n", () => {
    const group = summary.subgroups.find(
      (entry) =>
        entry.facet === "usableStackTrace" &&
        entry.group === "true" &&
        entry.metric === "blockCoverage",
    );
    expect(group?.estimate.mean).toBe(stratified.groupTrue.mean);
    expect(
      Math.abs((group?.estimate.se ?? Number.NaN) - stratified.groupTrue.se),
    ).toBeLessThanOrEqual(1e-12);
    expect(group?.estimate.n).toBe(stratified.nTrue);
    const facets = new Set(summary.subgroups.map((entry) => entry.facet));
    expect([...facets]).toEqual([
      "system",
      "language",
      "category",
      "reportNamesCausalMethod",
      "usableStackTrace",
      "multipleBlocks",
    ]);
    const kafka = summary.subgroups.filter(
      (entry) => entry.facet === "language" && entry.metric === "blockCoverage",
    );
    expect(kafka.map((entry) => entry.group)).toEqual(["go", "java", "rust", "scala"]);
  });

  it("compares disjoint groups by stratified bootstrap like the references", () => {
    const find = (s: typeof summary) =>
      s.subgroupDifferences.find(
        (entry) => entry.facet === "usableStackTrace" && entry.metric === "blockCoverage",
      )!.difference;
    const difference = find(summary);
    expect(difference.mean).toBe(stratified.mean);
    expect(Math.abs(difference.se - stratified.se)).toBeLessThanOrEqual(1e-12);
    expect(difference.n).toBe(stratified.nTrue + stratified.nFalse);
    expect(Math.abs(difference.low - stratified.plan.percentile.low)).toBeLessThanOrEqual(1e-12);
    expect(Math.abs(difference.high - stratified.plan.percentile.high)).toBeLessThanOrEqual(1e-12);
    expect(difference.pAtMostZero).toBe(stratified.plan.pAtMostZero);
    expectWithinMonteCarlo(difference, stratified.scipy.percentile);
    expectWithinMonteCarlo(find(bca), stratified.scipy.bca);
  });
});
