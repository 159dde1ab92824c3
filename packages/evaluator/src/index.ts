export type { Atom, AtomIndex, AtomIndexStatus } from "./atom-index.js";
export { directoryReader, listDirectoryFiles, type ReadFile } from "./directory-reader.js";
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
export { type NormalizedPath, type NormalizePathOptions, normalizeRepoPath } from "./paths.js";
export {
  DEFAULT_COVERAGE_ROW_BUDGET,
  DEFAULT_COVERAGE_SPAN_LIMIT,
  EVALUATOR_VERSION,
} from "./version.js";
