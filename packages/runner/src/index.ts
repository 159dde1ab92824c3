/**
 * Orchestration: prepares incidents, runs attempts (workspace, leakage check, sandbox, agent,
 * scoring) with resume, and rescores results folders.
 *
 * @packageDocumentation
 * @module @distdebug/runner
 */
export type { IncidentScorer } from "./attempt-scoring.js";
export type { AttemptPhase, RunEvent, RunEventListener } from "./events.js";
export { findMirror, type MirrorOptions } from "./find-mirror.js";
export { type CheckRunInputsOptions, checkRunInputs } from "./preflight.js";
export {
  type MaterializeOptions,
  mirrorOf,
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
export type { RunTally } from "./tally-run.js";
export { removeDeadWorkDirs, verifyScratchPrefix } from "./work-dirs.js";
export { type RunPoolOptions, runPool } from "./worker-pool.js";
