import { DEFAULT_MAX_DIAGNOSIS_BLOCKS, type ScoreParameters } from "@distdebug/schema";

/**
 * The evaluator's version, written into every `diagnosis_scores.json`. It changes whenever a
 * score could change for the same inputs (atom rules, metric definitions, defaults).
 *
 * 0.2.0: the coverage row budget is repository-relative (`coverageRowFloor`,
 * `coverageRepoShare`), at most `coverageSpanCount` spans earn coverage, a span that does not
 * fit the budget no longer closes it, the repository's size is its non-blank source lines, and
 * a diagnosis with a bad block or more than `maxDiagnosisBlocks` blocks is invalid.
 *
 * 0.3.0: a bare symbol resolves to every matching definition in the repository (no longer the
 * gold's files first), file credit is earned within the first `coverageSpanCount` spans and a
 * file budget (`coverageFileFloor`), a path-only span earns no block coverage, and a path or
 * symbol over 1,000 characters is invalid.
 *
 * 0.4.0: scores carry the search path (`search`) when the attempt's trajectory is given.
 *
 * @example
 * ```ts
 * if (scores.versions.evaluator !== EVALUATOR_VERSION) rescore();
 * ```
 */
export const EVALUATOR_VERSION = "0.4.0";

/** Default `coverageSpanLimit`: a span of more significant rows earns no coverage. */
export const DEFAULT_COVERAGE_SPAN_LIMIT = 40;

/** Default `coverageSpanCount`: only the first this many listed spans can earn coverage. */
export const DEFAULT_COVERAGE_SPAN_COUNT = 20;

/** Default `coverageRowBudget`: the largest row budget of coverage-earning spans. */
export const DEFAULT_COVERAGE_ROW_BUDGET = 400;

/** Default `coverageRowFloor`: the smallest row budget, whatever the repository's size. */
export const DEFAULT_COVERAGE_ROW_FLOOR = 20;

/** Default `coverageRepoShare`: the row budget's share of the repository's rows. */
export const DEFAULT_COVERAGE_REPO_SHARE = 0.02;

/** Default `coverageFileFloor`: the smallest file budget, whatever the repository's size. */
export const DEFAULT_COVERAGE_FILE_FLOOR = 3;

/** Every parameter's default (`maxDiagnosisBlocks` is the schema's). */
export const DEFAULT_EVALUATOR_PARAMETERS: Readonly<ScoreParameters> = Object.freeze({
  coverageSpanLimit: DEFAULT_COVERAGE_SPAN_LIMIT,
  coverageSpanCount: DEFAULT_COVERAGE_SPAN_COUNT,
  coverageRowBudget: DEFAULT_COVERAGE_ROW_BUDGET,
  coverageRowFloor: DEFAULT_COVERAGE_ROW_FLOOR,
  coverageRepoShare: DEFAULT_COVERAGE_REPO_SHARE,
  coverageFileFloor: DEFAULT_COVERAGE_FILE_FLOOR,
  maxDiagnosisBlocks: DEFAULT_MAX_DIAGNOSIS_BLOCKS,
});
