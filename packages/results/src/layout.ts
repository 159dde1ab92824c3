import { join } from "node:path";
import {
  DEFAULT_MAX_FILE_BYTES,
  formats,
  MAX_DIAGNOSIS_BYTES,
  MAX_TRAJECTORY_BYTES,
} from "@distdebug/schema";

/**
 * File names inside one attempt folder (`<incident>/attempt-<k>/`).
 *
 * @example
 * ```ts
 * join(attemptDir("results/baseline", "zklite-142", 1), ATTEMPT_FILES.scores);
 * // "results/baseline/zklite-142/attempt-1/diagnosis_scores.json"
 * ```
 */
export const ATTEMPT_FILES = {
  diagnosis: formats.diagnosis.fileName,
  trajectory: formats.trajectory.fileName,
  scores: formats.diagnosis_scores.fileName,
  attempt: formats.attempt.fileName,
} as const;

/**
 * The size limit of each file of an attempt folder, the runner's: `diagnosis.json` 1 MiB,
 * `trajectory.json`, `attempt.json` and `diagnosis_scores.json` 32 MiB. Every reader of an
 * attempt folder (`readAttempt`, a submission archive's layout) checks them before parsing.
 *
 * @example
 * ```ts
 * ATTEMPT_FILE_LIMITS[ATTEMPT_FILES.diagnosis]; // 1048576
 * ```
 */
export const ATTEMPT_FILE_LIMITS: Readonly<Record<string, number>> = {
  [ATTEMPT_FILES.diagnosis]: MAX_DIAGNOSIS_BYTES,
  [ATTEMPT_FILES.trajectory]: MAX_TRAJECTORY_BYTES,
  [ATTEMPT_FILES.attempt]: DEFAULT_MAX_FILE_BYTES,
  [ATTEMPT_FILES.scores]: DEFAULT_MAX_FILE_BYTES,
};

/**
 * File names at the top of a results folder: `run.json` (written by a run) and `summary.json`
 * (written by scoring).
 */
export const RESULTS_FILES = {
  run: formats.run.fileName,
  summary: formats.summary.fileName,
} as const;

const ATTEMPT_FOLDER = /^attempt-([1-9]\d*)$/;

/**
 * `results/<config>/run.json`.
 *
 * @example
 * ```ts
 * runInfoPath("results/baseline"); // "results/baseline/run.json"
 * ```
 */
export function runInfoPath(outDir: string): string {
  return join(outDir, RESULTS_FILES.run);
}

/**
 * `results/<config>/summary.json`.
 *
 * @example
 * ```ts
 * summaryPath("results/baseline"); // "results/baseline/summary.json"
 * ```
 */
export function summaryPath(outDir: string): string {
  return join(outDir, RESULTS_FILES.summary);
}

/**
 * `results/<config>/.run.lock`: held by the one run writing the folder.
 *
 * @example
 * ```ts
 * const lock = await acquireFileLock(runLockPath("results/baseline"), { wait: false });
 * ```
 */
export function runLockPath(outDir: string): string {
  return join(outDir, ".run.lock");
}

/**
 * The POSIX path of an attempt folder (or of a file in it) relative to the results folder:
 * `<incident>/attempt-<k>[/<file>]`, as archives and messages name it.
 *
 * @example
 * ```ts
 * attemptPath("zklite-142", 2, ATTEMPT_FILES.trajectory); // "zklite-142/attempt-2/trajectory.json"
 * ```
 */
export function attemptPath(incidentId: string, attempt: number, file?: string): string {
  const folder = `${incidentId}/attempt-${attempt}`;
  return file === undefined ? folder : `${folder}/${file}`;
}

/**
 * Reads a path made by {@link attemptPath} with a file name; undefined for any other path.
 *
 * @example
 * ```ts
 * parseAttemptPath("zklite-142/attempt-2/trajectory.json");
 * // { incidentId: "zklite-142", attempt: 2, file: "trajectory.json" }
 * ```
 */
export function parseAttemptPath(
  path: string,
): { incidentId: string; attempt: number; file: string } | undefined {
  const [incidentId, folder, file, ...rest] = path.split("/");
  if (!incidentId || !folder || !file || rest.length > 0) return undefined;
  const attempt = attemptNumber(folder);
  return attempt === undefined ? undefined : { incidentId, attempt, file };
}

/** The k of an `attempt-<k>` folder name (k from 1), or undefined for any other name. */
export function attemptNumber(name: string): number | undefined {
  const match = ATTEMPT_FOLDER.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * `results/<config>/<incident>/attempt-<k>` (k from 1).
 *
 * @example
 * ```ts
 * attemptDir("results/baseline", "zklite-142", 1); // "results/baseline/zklite-142/attempt-1"
 * ```
 */
export function attemptDir(outDir: string, incidentId: string, attempt: number): string {
  return join(outDir, attemptPath(incidentId, attempt));
}
