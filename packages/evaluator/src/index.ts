/**
 * Scores a diagnosis against gold blocks on the source tree of the buggy revision, at statement
 * granularity, through tree-sitter syntax trees of seven languages.
 *
 * @packageDocumentation
 * @module @distdebug/evaluator
 */
export type { Atom, AtomIndex, AtomIndexStatus, Definition } from "./atom-index.js";
export { directoryReader, listDirectoryFiles, type ReadFile } from "./directory-reader.js";
export {
  createDirectoryScorer,
  DEFAULT_SCORING_DEADLINE_MS,
  type DirectoryScorer,
  type DirectoryScorerOptions,
  type TreeContents,
  type TreeFiles,
} from "./directory-scorer.js";
export {
  createEvaluator,
  type Evaluator,
  type EvaluatorOptions,
  type ScoreInput,
} from "./evaluator.js";
export {
  type ChangedFile,
  type GoldSuggestion,
  type SuggestOptions,
  suggestGoldBlocks,
  suggestGoldBlocksFromDiff,
  suggestGoldBlocksFromTrees,
} from "./label-suggest.js";
export {
  DEFAULT_LANGUAGES,
  GRAMMAR_VERSIONS,
  type LanguageChoice,
  languageOf,
} from "./languages.js";
export { diffLines, type LineEdits } from "./line-diff.js";
export { memoryReader } from "./memory-reader.js";
export { type MissingDiagnosisOptions, scoreMissingDiagnosis } from "./missing-diagnosis.js";
export {
  coverageBudget,
  type EvaluatorParameters,
  evaluatorParameters,
  fileBudget,
} from "./parameters.js";
export { type NormalizedPath, type NormalizePathOptions, normalizeRepoPath } from "./paths.js";
export {
  DEFAULT_COVERAGE_FILE_FLOOR,
  DEFAULT_COVERAGE_REPO_SHARE,
  DEFAULT_COVERAGE_ROW_BUDGET,
  DEFAULT_COVERAGE_ROW_FLOOR,
  DEFAULT_COVERAGE_SPAN_COUNT,
  DEFAULT_COVERAGE_SPAN_LIMIT,
  DEFAULT_EVALUATOR_PARAMETERS,
  EVALUATOR_VERSION,
} from "./version.js";
