/**
 * The results-folder layout in one place: paths, atomic attempt folders, the attempt identity,
 * `run.json` and `summary.json`.
 *
 * @packageDocumentation
 * @module @distdebug/results
 */
export {
  removeAttemptLeftovers,
  type StagedAttemptFolder,
  stageAttemptFolder,
} from "./attempt-folder.js";
export {
  type AttemptIdentity,
  type AttemptMatch,
  attemptInputHash,
  legacyAttemptInputHash,
  matchAttempt,
} from "./attempt-identity.js";
export { FINISHED_STATUSES, isFinished } from "./attempt-status.js";
export {
  ATTEMPT_FILE_LIMITS,
  ATTEMPT_FILES,
  attemptDir,
  attemptPath,
  parseAttemptPath,
  RESULTS_FILES,
  runInfoPath,
  runLockPath,
  summaryPath,
} from "./layout.js";
export {
  type MergeEvent,
  type MergeGap,
  type MergeResultsOptions,
  type MergeResultsResult,
  mergeResults,
} from "./merge-results.js";
export {
  type AttemptFile,
  type AttemptFileName,
  type AttemptFiles,
  type AttemptFileValues,
  attemptFileProblem,
  type ReadAttemptOptions,
  readAttempt,
} from "./read-attempt.js";
export { MIN_SECRET_LENGTH, REDACTED, redactSecrets } from "./redact.js";
export {
  type AttemptFolder,
  listAttemptFolders,
  type ReadResultsFileOptions,
  type ResultsFile,
  readFinishedAttempt,
  readRunInfo,
  readSummary,
  writeRunInfo,
  writeSummary,
} from "./results-files.js";
