export type { AttemptPhase, RunEvent, RunEventListener } from "./events.js";
export {
  type PreparedIncident,
  type PrepareIncidentOptions,
  prepareIncident,
} from "./prepared-incident.js";
export { type RunAttemptOptions, runAttempt } from "./run-attempt.js";
export {
  type RunBenchmarkOptions,
  type RunBenchmarkResult,
  runBenchmark,
} from "./run-benchmark.js";
export { attemptInputHash, buildRunInfo, configHash, configIdentity } from "./run-info.js";
export {
  type ScoreResultsOptions,
  type ScoreResultsResult,
  scoreResults,
} from "./score-results.js";
export { type CommandLeak, scanCommand, scanTrajectory } from "./submission/leakage-scan.js";
export {
  MANIFEST_FILE,
  type PackageEvent,
  type PackageResultsOptions,
  type PackageResultsResult,
  packageResults,
} from "./submission/package-results.js";
export {
  DEFAULT_MAX_ARCHIVE_BYTES,
  readTarGz,
  type TarEntry,
  writeTarGz,
} from "./submission/tar.js";
export {
  type ChecksumProblem,
  type ScoreDifference,
  type VerifySubmissionOptions,
  type VerifySubmissionResult,
  verifySubmission,
} from "./submission/verify-submission.js";
export { HARNESS_VERSION } from "./version.js";
