export { type TaskManifest, writeAgentTaskFolder } from "./agent-task-folder.js";
export type {
  Agent,
  AgentContext,
  AgentOutcome,
  AgentSetup,
  AgentSetupContext,
} from "./agents/agent.js";
export {
  BASELINE_PROGRAM_PATH,
  baselineAgent,
  baselineProgramFile,
  DEFAULT_BASELINE_ROW_BUDGET,
} from "./agents/baseline/baseline-agent.js";
export {
  type CommandAgentOptions,
  commandAgentEnv,
  createCommandAgent,
} from "./agents/command/command-agent.js";
export { mergeTrajectory } from "./agents/command/merge-trajectory.js";
export { createMiniAgent, type MiniAgentOptions } from "./agents/mini/mini-agent.js";
export {
  DEFAULT_FORMAT_ERROR_TEMPLATE,
  DEFAULT_INSTANCE_TEMPLATE,
  DEFAULT_SYSTEM_TEMPLATE,
  renderTemplate,
  SUBMIT_SENTINEL,
  TEMPLATE_VARIABLES,
  type TemplateVariable,
} from "./agents/mini/templates.js";
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
export { type DatasetStats, datasetStats, PAPER_SHAPE } from "./dataset/stats.js";
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
export {
  FORWARDER_PROGRAM_PATH,
  forwarderProgramFile,
  GATEWAY_PLACEHOLDER_KEY,
  SANDBOX_NODE_PATH,
} from "./gateway/forwarder.js";
export {
  DEFAULT_BASE_URLS,
  GATEWAY_ROUTES,
  type ModelGateway,
  type StartGatewayOptions,
  startGateway,
} from "./gateway/gateway-server.js";
export { canonicalJson, sha256Hex } from "./hash.js";
export { apiKeyEnvName, resolveApiKey } from "./model/api-key.js";
export {
  type CompleteOptions,
  type CreateModelClientOptions,
  createModelClient,
  type ModelClient,
  type ModelMessage,
  type ModelReply,
} from "./model/model-client.js";
export { addUsage, type CallTokens, costOf } from "./model/pricing.js";
export { type RetryOptions, withRetries } from "./model/retry.js";
export { type MeteredCall, type UsageBudget, UsageMeter } from "./model/usage-meter.js";
export { anthropicUsage, openAiUsage } from "./model/wire-usage.js";
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
export { checkShard, incidentsOfShard, parseShard, type Shard, shardOf } from "./shard.js";
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
export {
  ADJACENT_ROWS,
  findMirror,
  type IncidentVerification,
  type VerifyIncidentOptions,
  verifyIncident,
} from "./verify-incident.js";
export { HARNESS_VERSION } from "./version.js";
