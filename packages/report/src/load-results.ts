import { resolve } from "node:path";
import {
  type AttemptFile,
  attemptFileProblem,
  listAttemptFolders,
  readAttempt,
  readRunInfo,
  readSummary,
} from "@distdebug/results";
import type {
  Attempt,
  Diagnosis,
  DiagnosisScores,
  RunInfo,
  Summary,
  Trajectory,
} from "@distdebug/schema";

/** One attempt folder of a results folder, with every file that could be read. */
export interface LoadedAttempt {
  incidentId: string;
  /** 1-based attempt number. */
  attempt: number;
  record?: Attempt;
  diagnosis?: Diagnosis;
  scores?: DiagnosisScores;
  trajectory?: Trajectory;
  /** One line per file that is missing or invalid, naming the file. */
  problems: string[];
}

/** A results folder read for a report: its summary, its run and its attempts. */
export interface LoadedResults {
  /** Absolute path of the results folder. */
  dir: string;
  /** The configuration's name (from summary.json). */
  name: string;
  summary: Summary;
  run?: RunInfo;
  /** In incident then attempt order. */
  attempts: LoadedAttempt[];
}

/** The value of a file as read, its problem (missing or invalid) noted in `problems`. */
function fileValue<T>(file: AttemptFile<T>, problems: string[]): T | undefined {
  const problem = attemptFileProblem(file);
  if (problem !== undefined) problems.push(problem);
  return file.state === "valid" ? file.value : undefined;
}

async function loadAttempt(
  dir: string,
  incidentId: string,
  attempt: number,
): Promise<LoadedAttempt> {
  const loaded: LoadedAttempt = { incidentId, attempt, problems: [] };
  const folder = await readAttempt(dir);
  const record = fileValue(folder.attempt, loaded.problems);
  const diagnosis = fileValue(folder.diagnosis, loaded.problems);
  const scores = fileValue(folder.scores, loaded.problems);
  const trajectory = fileValue(folder.trajectory, loaded.problems);
  if (record) loaded.record = record;
  if (diagnosis) loaded.diagnosis = diagnosis;
  if (scores) loaded.scores = scores;
  if (trajectory) loaded.trajectory = trajectory;
  return loaded;
}

/**
 * Reads a results folder for a report: `summary.json` (required: write it with
 * `distdebug score`), `run.json` if present, and every `<incident>/attempt-<k>/` folder.
 * Missing or invalid attempt files are listed in each attempt's `problems`, not thrown.
 *
 * @throws DistDebugError `FILE_NOT_FOUND` when summary.json is missing, `INVALID_FILE` when
 * summary.json or run.json is invalid.
 * @example
 * ```ts
 * const results = await loadResults("results/baseline");
 * console.log(results.summary.metrics.blockCoverage.mean);
 * ```
 */
export async function loadResults(dir: string): Promise<LoadedResults> {
  const root = resolve(dir);
  const summary = (await readSummary(dir, { required: true })).value;
  const run = (await readRunInfo(dir))?.value;
  const attempts: LoadedAttempt[] = [];
  for (const folder of await listAttemptFolders(root))
    attempts.push(await loadAttempt(folder.dir, folder.incidentId, folder.attempt));
  return { dir: root, name: summary.name, summary, ...(run ? { run } : {}), attempts };
}
