import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_COVERAGE_FILE_FLOOR",
      "DEFAULT_COVERAGE_REPO_SHARE",
      "DEFAULT_COVERAGE_ROW_BUDGET",
      "DEFAULT_COVERAGE_ROW_FLOOR",
      "DEFAULT_COVERAGE_SPAN_COUNT",
      "DEFAULT_COVERAGE_SPAN_LIMIT",
      "DEFAULT_EVALUATOR_PARAMETERS",
      "DEFAULT_LANGUAGES",
      "DEFAULT_SCORING_DEADLINE_MS",
      "EVALUATOR_VERSION",
      "GRAMMAR_VERSIONS",
      "coverageBudget",
      "createDirectoryScorer",
      "createEvaluator",
      "diffLines",
      "directoryReader",
      "evaluatorParameters",
      "fileBudget",
      "languageOf",
      "listDirectoryFiles",
      "memoryReader",
      "normalizeRepoPath",
      "scoreMissingDiagnosis",
      "suggestGoldBlocks",
      "suggestGoldBlocksFromDiff",
      "suggestGoldBlocksFromTrees",
    ]);
  });
});
