import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type Attempt,
  type Diagnosis,
  type DiagnosisScores,
  DistDebugError,
  parseAttempt,
  parseDiagnosis,
  parseDiagnosisScores,
  parseRunInfo,
  parseSummary,
  parseTrajectory,
  type RunInfo,
  type Summary,
  type Trajectory,
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

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}

async function loadAttempt(
  dir: string,
  incidentId: string,
  attempt: number,
): Promise<LoadedAttempt> {
  const loaded: LoadedAttempt = { incidentId, attempt, problems: [] };
  const read = async <T>(
    name: string,
    parse: (text: string, options: { source: string }) => T,
  ): Promise<T | undefined> => {
    const path = join(dir, name);
    const text = await readOptional(path);
    if (text === undefined) {
      loaded.problems.push(`${path}: missing`);
      return undefined;
    }
    try {
      return parse(text, { source: path });
    } catch (error) {
      loaded.problems.push(errorText(error));
      return undefined;
    }
  };
  const record = await read("attempt.json", parseAttempt);
  const diagnosis = await read("diagnosis.json", parseDiagnosis);
  const scores = await read("diagnosis_scores.json", parseDiagnosisScores);
  const trajectory = await read("trajectory.json", parseTrajectory);
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
  const summaryFile = join(root, "summary.json");
  const summaryText = await readOptional(summaryFile);
  if (summaryText === undefined) {
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `${join(dir, "summary.json")}: no such file; run \`distdebug score ${dir}\` first to write it`,
      data: { path: summaryFile },
    });
  }
  const summary = parseSummary(summaryText, { source: join(dir, "summary.json") });
  const runText = await readOptional(join(root, "run.json"));
  const run =
    runText === undefined ? undefined : parseRunInfo(runText, { source: join(dir, "run.json") });
  const attempts: LoadedAttempt[] = [];
  const entries = await readdir(root, { withFileTypes: true });
  const incidentIds = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const incidentId of incidentIds) {
    const inner = await readdir(join(root, incidentId), { withFileTypes: true });
    const numbers = inner
      .filter((entry) => entry.isDirectory())
      .map((entry) => /^attempt-([1-9]\d*)$/.exec(entry.name)?.[1])
      .filter((value): value is string => value !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    for (const attempt of numbers)
      attempts.push(
        await loadAttempt(join(root, incidentId, `attempt-${attempt}`), incidentId, attempt),
      );
  }
  return { dir: root, name: summary.name, summary, ...(run ? { run } : {}), attempts };
}
