import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "CONVENTIONS",
      "DEFAULT_RESAMPLES",
      "DEFAULT_SEED",
      "METRIC_NAMES",
      "STATS_VERSION",
      "SUBGROUP_FACETS",
      "acceleration",
      "aggregateAttempts",
      "bootstrapMean",
      "compare",
      "createResamplePlan",
      "formatCostUsd",
      "formatEstimate",
      "formatPoints",
      "formatTokens",
      "groupsOf",
      "normalCdf",
      "normalQuantile",
      "pairedDifference",
      "powerAnalysis",
      "quantileR7",
      "runToRun",
      "stratifiedDifference",
      "subgroupTables",
      "summarize",
    ]);
  });
});
