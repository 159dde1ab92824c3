export type { IncidentScorer } from "./attempt-scoring.js";
export type { AttemptPhase, RunEvent, RunEventListener } from "./events.js";
export { findMirror, type MirrorOptions } from "./find-mirror.js";
export { type CheckRunInputsOptions, checkRunInputs } from "./preflight.js";
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
export {
  type ScoreEvent,
  type ScoreResultsOptions,
  type ScoreResultsResult,
  scoreResults,
} from "./score-results.js";
export { checkShard, incidentsOfShard, parseShard, type Shard, shardOf } from "./shard.js";
export {
  ADJACENT_ROWS,
  type IncidentVerification,
  type VerifyIncidentOptions,
  verifyIncident,
} from "./verify-incident.js";
