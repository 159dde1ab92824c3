/**
 * Every file format of DistDebug, defined once as a zod schema, with the inferred TypeScript types,
 * strict parsers with clear errors, JSON Schema export and the one error class.
 *
 * @packageDocumentation
 * @module @distdebug/schema
 */
export {
  Attempt,
  AttemptError,
  AttemptStatus,
  LimitHit,
  ResourceEnforcement,
} from "./attempt.js";
export {
  addUsage,
  CommitId,
  emptyUsage,
  formatTag,
  Language,
  LineNumber,
  RepoPath,
  Sha256,
  spentUsd,
  Timestamp,
  Usage,
} from "./common.js";
export {
  AgentConfig,
  CACHE_WRITE_PRICE_FACTORS,
  effectivePrices,
  ModelConfig,
  ModelPrices,
  RunConfig,
  type RunConfigInput,
} from "./config.js";
export {
  applyOverrides,
  type LoadConfigOptions,
  loadConfig,
  resolveConfigEnv,
} from "./config-file.js";
export { DatasetIndex } from "./dataset.js";
export { type DetectedFormat, detectFormat, parseAnyFile } from "./detect.js";
export {
  DEFAULT_MAX_DIAGNOSIS_BLOCKS,
  Diagnosis,
  DiagnosisBlock,
  diagnosisSchema,
  MAX_DIAGNOSIS_NAME_CHARS,
} from "./diagnosis.js";
export {
  DiagnosisScores,
  ScoreMetrics,
  ScoreParameters,
  ScoreWarning,
} from "./diagnosis-scores.js";
export { errorHeadline, errorMessage } from "./error-message.js";
export {
  DistDebugError,
  type DistDebugErrorCode,
  type DistDebugErrorOptions,
  ERROR_CODES,
} from "./errors.js";
export {
  DEFAULT_MAX_FILE_BYTES,
  type ListFilesOptions,
  listFilesBelow,
  MAX_DIAGNOSIS_BYTES,
  MAX_TRAJECTORY_BYTES,
  type ReadFileOptions,
  readFileChecked,
  readFileIfExists,
  tempSiblingPath,
  writeFileAtomic,
} from "./files.js";
export { type FormatKind, formatOf, formats, isFormatKind } from "./formats.js";
export { Gold, GoldBlock } from "./gold.js";
export { canonicalJson, sha256Hex } from "./hash.js";
export { Artifact, Incident, IncidentCategory } from "./incident.js";
export { describeZodIssues, type FileIssue, formatIssues } from "./internal/issues.js";
export { checkJsonText, DEFAULT_JSON_LIMITS, type JsonLimits } from "./json-limits.js";
export { jsonSchemaFiles, jsonSchemaOf } from "./json-schema.js";
export {
  type AcquireFileLockOptions,
  acquireFileLock,
  type FileLock,
  processAlive,
  withFileLock,
} from "./lock.js";
export { type InvalidFileData, type ParseOptions, parseJsonInput, serialize } from "./parse.js";
export {
  type DiagnosisParseOptions,
  parseAttempt,
  parseDatasetIndex,
  parseDiagnosis,
  parseDiagnosisScores,
  parseGold,
  parseIncident,
  parseRepoHistory,
  parseRunConfig,
  parseRunInfo,
  parseSubmissionManifest,
  parseSummary,
  parseTaskManifest,
  parseTrajectory,
} from "./parsers.js";
export { RepoHistory } from "./repo-history.js";
export { RunInfo, ShardScheduler } from "./run.js";
export {
  attemptEnvelopeProblems,
  type SandboxEnvelopeOptions,
  SYSTEM_SANDBOX_PATHS,
  sandboxEnvelopeProblems,
} from "./sandbox-envelope.js";
export { ReadOnlyBind, SandboxPolicy, type SandboxPolicyInput } from "./sandbox-policy.js";
export { SearchOutcome, SearchPath } from "./search-path.js";
export { LeakFinding, LeakKind, SubmissionManifest } from "./submission.js";
export { closest, didYouMean } from "./suggest.js";
export {
  Estimate,
  Quartiles,
  SearchCost,
  SearchSummary,
  StatsMethod,
  Summary,
} from "./summary.js";
export { TaskManifest } from "./task.js";
export {
  CommandStep,
  MessageStep,
  ModelCallStep,
  Trajectory,
  TrajectoryExitStatus,
  TrajectoryStep,
  trajectoryExitStatus,
} from "./trajectory.js";
export {
  type TrajectoryTurn,
  type TurnObservation,
  trajectoryTurns,
} from "./trajectory-turns.js";
export {
  type CallTokens,
  foldCacheUsage,
  usageFromWire,
  type WireProvider,
} from "./wire-usage.js";
