export { type TaskManifest, writeAgentTaskFolder } from "./agent-task-folder.js";
export type { Agent, AgentContext, AgentOutcome } from "./agents/agent.js";
export {
  BASELINE_PROGRAM_PATH,
  baselineAgent,
  baselineProgramFile,
  DEFAULT_BASELINE_ROW_BUDGET,
} from "./agents/baseline/baseline-agent.js";
export { agentFor } from "./agents/registry.js";
export {
  type BuildRepositoryOptions,
  type BuiltRepository,
  buildIncidentRepository,
  defaultCacheDir,
} from "./dataset/build-repository.js";
export { datasetDigest } from "./dataset/digest.js";
export { loadGold } from "./dataset/gold.js";
export { HistoryCommit, RepoHistory } from "./dataset/history-format.js";
export { checkDataset, loadDataset } from "./dataset/load-dataset.js";
export {
  type DatasetProblem,
  formatProblem,
  type InvalidDatasetData,
} from "./dataset/problems.js";
export { globToRegExp, type IncidentSelection, selectIncidents } from "./dataset/select.js";
export {
  type IncidentTask,
  incidentTask,
  type TaskArtifact,
  writeTaskFiles,
} from "./dataset/task.js";
export type {
  Dataset,
  DatasetCheck,
  DatasetCounts,
  DatasetIncident,
  IncidentRepositorySource,
} from "./dataset/types.js";
export type { AttemptPhase, RunEvent, RunEventListener } from "./events.js";
export { canonicalJson, sha256Hex } from "./hash.js";
export {
  type PreparedIncident,
  type PrepareIncidentOptions,
  prepareIncident,
} from "./prepared-incident.js";
export { ATTEMPT_FILES, attemptDir, runInfoPath, summaryPath } from "./results-layout.js";
export { type RunAttemptOptions, runAttempt } from "./run-attempt.js";
export {
  type RunBenchmarkOptions,
  type RunBenchmarkResult,
  readFinishedAttempt,
  runBenchmark,
} from "./run-benchmark.js";
export { attemptInputHash, buildRunInfo, configHash, configIdentity } from "./run-info.js";
export {
  type ScoreResultsOptions,
  type ScoreResultsResult,
  scoreResults,
} from "./score-results.js";
export { HARNESS_VERSION } from "./version.js";
