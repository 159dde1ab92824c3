import type { SearchOutcome, SearchPath } from "@distdebug/schema";
import { Summary } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import type { AttemptRecord, IncidentRecord } from "./aggregate.js";
import { bootstrapMean } from "./bootstrap.js";
import { compare } from "./compare.js";
import { sharedResamplePlan } from "./resample-plan.js";
import { summarize } from "./summarize.js";

const usage = { inputTokens: 10, outputTokens: 1, cachedTokens: 0, calls: 1, costUsd: null };
const incident = (id: string, goldBlocks: number): IncidentRecord => ({
  id,
  system: "kv",
  languages: ["go"],
  category: "concurrency",
  clues: { reportNamesCausalMethod: false, usableStackTrace: false },
  goldBlocks,
});

function path(
  outcomes: SearchOutcome[],
  firstBlock: number | null,
  firstFile: number | null,
  tokens: number | null,
): SearchPath {
  return {
    observed: !outcomes.every((outcome) => outcome === "unknown" || outcome === "named"),
    turns: 10,
    causalFilesShown: [],
    causalBlocksShown: [],
    firstCausalFileStep: firstFile,
    firstCausalBlockStep: firstBlock,
    tokensToFirstCausalFile: firstFile === null ? null : tokens,
    tokensToFirstCausalBlock: firstBlock === null ? null : tokens,
    secondsToFirstCausalFile: null,
    secondsToFirstCausalBlock: null,
    blocks: outcomes.map((outcome) => ({ outcome, fileStep: firstFile, blockStep: firstBlock })),
  };
}

function attempt(
  incidentId: string,
  k: number,
  blockCoverage: number,
  search?: SearchPath,
): AttemptRecord {
  return {
    incidentId,
    attempt: k,
    status: "succeeded",
    usage,
    metrics: { blockCoverage, blockPrecision: 0, fileCoverage: blockCoverage, linePrecision: 0 },
    ...(search ? { search } : {}),
  };
}

const incidents = [incident("a", 2), incident("b", 1), incident("c", 1)];
const searched = [
  attempt("a", 1, 0.5, path(["named", "shown-not-named"], 2, 1, 300)),
  attempt("a", 2, 0, path(["file-only", "never-shown"], null, 3, 500)),
  attempt("b", 1, 0, path(["shown-not-named"], 4, 4, 900)),
  attempt("b", 2, 1, path(["named"], null, null, null)),
  attempt("c", 1, 0, path(["never-shown"], null, null, null)),
  // No trajectory: what it named is named, the rest unknown.
  attempt("c", 2, 0),
];

describe("the search path in summary.json", () => {
  const summary = Summary.parse(
    summarize({ name: "x", attempts: searched, incidents, seed: 7, resamples: 500 }),
  );
  const search = summary.search!;

  it("shares of gold blocks per class: attempt shares, incident means, the shared incident bootstrap", () => {
    // Incident means: a = (0.5+0, 0.5+0, 0+0.5, 0+0.5)/2 per class; b; c.
    const perIncident: Record<SearchOutcome, number[]> = {
      named: [0.25, 0.5, 0],
      "shown-not-named": [0.25, 0.5, 0],
      "file-only": [0.25, 0, 0],
      "never-shown": [0.25, 0, 0.5],
      unknown: [0, 0, 0.5],
    };
    const plan = sharedResamplePlan({ size: 3, resamples: 500, seed: 7 });
    for (const [outcome, values] of Object.entries(perIncident))
      expect(search.shares[outcome as SearchOutcome]).toEqual(
        bootstrapMean(values, plan, { method: "percentile", confidence: 0.95 }).estimate,
      );
    expect(summary.incidents.map((row) => row.search?.["shown-not-named"])).toEqual([0.25, 0.5, 0]);
    // Named is block coverage, as it must be.
    expect(search.shares.named.mean).toBe(summary.metrics.blockCoverage?.mean);
  });

  it("steps and tokens to the first causal file and block over the attempts that reached them", () => {
    expect(search.observedAttempts).toBe(4);
    expect(search.toFirstCausalBlock).toEqual({
      attempts: 2,
      steps: { q1: 2.5, median: 3, q3: 3.5 },
      tokens: { q1: 450, median: 600, q3: 750 },
    });
    expect(search.toFirstCausalFile.attempts).toBe(3);
    expect(search.toFirstCausalFile.steps).toEqual({ q1: 2, median: 3, q3: 3.5 });
  });

  it("no attempt with a search path: no search section (files of older harnesses stay as they were)", () => {
    const plain = summarize({
      name: "x",
      attempts: searched.map(({ search: _search, ...rest }) => rest),
      incidents,
      resamples: 100,
    });
    expect(plain.search).toBeUndefined();
    expect(plain.incidents[0]?.search).toBeUndefined();
  });

  it("compare: the paired difference in the shown-not-named share, from summaries or attempt sets", () => {
    const other = searched.map((record) =>
      record.search
        ? {
            ...record,
            search: path(
              record.search.blocks.map(() => "never-shown"),
              null,
              null,
              null,
            ),
          }
        : record,
    );
    const otherSummary = summarize({
      name: "y",
      attempts: other,
      incidents,
      resamples: 500,
      seed: 7,
    });
    const fromSummaries = compare({ configs: [summary, otherSummary], seed: 7, resamples: 500 });
    const fromAttempts = compare({
      configs: [
        { name: "x", attempts: searched, incidents },
        { name: "y", attempts: other, incidents },
      ],
      seed: 7,
      resamples: 500,
    });
    const pair = fromSummaries.shownNotNamed?.[0];
    expect(pair).toMatchObject({ a: "x", b: "y" });
    expect(pair?.difference.mean).toBeCloseTo((0.25 + 0.5 + 0) / 3, 12);
    expect(fromAttempts.shownNotNamed).toEqual(fromSummaries.shownNotNamed);
    const plain = summarize({
      name: "z",
      attempts: searched.map(({ search: _search, ...rest }) => rest),
      incidents,
      resamples: 100,
    });
    expect(compare({ configs: [summary, plain], resamples: 100 }).shownNotNamed).toBeUndefined();
  });
});
