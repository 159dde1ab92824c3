import { DEFAULT_MAX_DIAGNOSIS_BLOCKS, type Diagnosis, diagnosisSchema } from "./diagnosis.js";
import { DistDebugError } from "./errors.js";
import { type FormatKind, formats } from "./formats.js";
import {
  convertMiniSweAgentTrajectory,
  isMiniSweAgentTrajectory,
  MiniSweAgentMessageList,
  MiniSweAgentTrajectory,
} from "./mini-swe-agent.js";
import { createParser, type ParseOptions, parseJsonInput, validateWith } from "./parse.js";
import type { Trajectory } from "./trajectory.js";

/** Parses and validates `incident.json`. Throws `INVALID_FILE` listing every problem. */
export const parseIncident = createParser("incident");
/** Parses and validates `gold.json`. Throws `INVALID_FILE` listing every problem. */
export const parseGold = createParser("gold");
/** Options of {@link parseDiagnosis}. */
export interface DiagnosisParseOptions extends ParseOptions {
  /** At most this many blocks. Default {@link DEFAULT_MAX_DIAGNOSIS_BLOCKS} (200). */
  maxDiagnosisBlocks?: number;
}

const diagnosisParsers = new Map<number, ReturnType<typeof createParser<"diagnosis">>>();

/**
 * Parses and validates `diagnosis.json` (at most `maxDiagnosisBlocks` blocks, default 200).
 * Throws `INVALID_FILE` listing every problem.
 * @example
 * ```ts
 * const diagnosis = parseDiagnosis(await readFile("out/diagnosis.json", "utf8"), { source: "out/diagnosis.json" });
 * ```
 */
export function parseDiagnosis(input: unknown, options: DiagnosisParseOptions = {}): Diagnosis {
  const limit = options.maxDiagnosisBlocks ?? DEFAULT_MAX_DIAGNOSIS_BLOCKS;
  if (!Number.isInteger(limit) || limit < 1)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `maxDiagnosisBlocks: expected a whole number >= 1, found ${limit}`,
      data: { maxDiagnosisBlocks: limit },
    });
  let parse = diagnosisParsers.get(limit);
  if (!parse) {
    parse = createParser("diagnosis", diagnosisSchema(limit));
    diagnosisParsers.set(limit, parse);
  }
  return parse(input, options);
}
/** Parses and validates `diagnosis_scores.json`. */
export const parseDiagnosisScores = createParser("diagnosis_scores");
/** Parses and validates `attempt.json`. */
export const parseAttempt = createParser("attempt");
/** Parses and validates `run.json`. */
export const parseRunInfo = createParser("run");
/** Parses and validates `summary.json`. */
export const parseSummary = createParser("summary");
/** Parses and validates a submission `manifest.json`. */
export const parseSubmissionManifest = createParser("submission");
/** Parses and validates `dataset.json`. */
export const parseDatasetIndex = createParser("dataset");
/** Parses and validates an agent's `task.json`. */
export const parseTaskManifest = createParser("task");
/** Parses and validates an incident repository's `repo/history.json`. */
export const parseRepoHistory = createParser("repo_history");
/** Validates a run config value (already read from YAML; see `loadConfig` for files). */
export const parseRunConfig = createParser("config");

const parseOwnTrajectory = createParser("trajectory");

/**
 * Parses `trajectory.json`: the DistDebug format, or a mini-swe-agent trajectory (the
 * `mini-swe-agent-1.1` object or the older bare message list), which is converted.
 */
export function parseTrajectory(input: unknown, options: ParseOptions = {}): Trajectory {
  const value = parseJsonInput(input, options);
  if (!isMiniSweAgentTrajectory(value)) return parseOwnTrajectory(value, options);
  const source = options.source ?? "input";
  const mini = Array.isArray(value)
    ? validateWith(MiniSweAgentMessageList, "trajectory", value, source)
    : validateWith(MiniSweAgentTrajectory, "trajectory", value, source);
  return validateWith(
    formats.trajectory.schema,
    "trajectory",
    convertMiniSweAgentTrajectory(mini),
    source,
  );
}

/** The parse function of every file kind, by kind. */
export const parsersByKind = {
  incident: parseIncident,
  gold: parseGold,
  diagnosis: parseDiagnosis,
  trajectory: parseTrajectory,
  diagnosis_scores: parseDiagnosisScores,
  attempt: parseAttempt,
  run: parseRunInfo,
  summary: parseSummary,
  config: parseRunConfig,
  submission: parseSubmissionManifest,
  dataset: parseDatasetIndex,
  task: parseTaskManifest,
  repo_history: parseRepoHistory,
} as const satisfies Record<FormatKind, (input: unknown, options?: ParseOptions) => unknown>;
