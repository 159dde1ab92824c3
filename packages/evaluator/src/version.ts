/**
 * The evaluator's version, written into every `diagnosis_scores.json`. It changes whenever a
 * score could change for the same inputs (atom rules, metric definitions, defaults).
 *
 * @example
 * ```ts
 * if (scores.versions.evaluator !== EVALUATOR_VERSION) rescore();
 * ```
 */
export const EVALUATOR_VERSION = "0.1.0";

/** Default `coverageSpanLimit`: a span of more significant rows earns no coverage. */
export const DEFAULT_COVERAGE_SPAN_LIMIT = 40;

/** Default `coverageRowBudget`: coverage-earning spans may total this many rows. */
export const DEFAULT_COVERAGE_ROW_BUDGET = 400;
