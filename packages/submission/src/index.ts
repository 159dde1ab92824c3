/**
 * Packages a results folder as a submission archive and verifies one from the archive alone.
 *
 * @packageDocumentation
 * @module @distdebug/submission
 */
export { checkResultsFolder } from "./check-results-folder.js";
export {
  expectedSubmission,
  type SubmissionExpectation,
  type SubmissionFiles,
  submissionProblems,
} from "./consistency.js";
export { type CommandLeak, scanCommand, scanTrajectory } from "./leakage-scan.js";
export {
  type PackageEvent,
  type PackageResultsOptions,
  type PackageResultsResult,
  packageResults,
} from "./package-results.js";
export { SUBMISSION_LAYOUT } from "./submission-layout.js";
export {
  type ArchiveLayout,
  type ReadTarOptions,
  readTarGz,
  readTarGzFile,
  type TarEntry,
  writeTarGz,
} from "./tar.js";
export {
  type ChecksumProblem,
  type ScoreDifference,
  type VerifySubmissionOptions,
  type VerifySubmissionResult,
  verifySubmission,
} from "./verify-submission.js";
