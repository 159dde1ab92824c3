import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Attempt,
  DistDebugError,
  type ParseOptions,
  parseRunInfo,
  parseSummary,
  type RunInfo,
  type Summary,
  serialize,
  writeFileAtomic,
} from "@distdebug/schema";
import { type AttemptIdentity, attemptInputHash, matchAttempt } from "./attempt-identity.js";
import { isFinished } from "./attempt-status.js";
import { ATTEMPT_FILES, attemptNumber, runInfoPath, summaryPath } from "./layout.js";
import { readAttempt } from "./read-attempt.js";

/** One `<incident>/attempt-<k>` folder of a results folder. */
export interface AttemptFolder {
  incidentId: string;
  /** 1-based attempt number. */
  attempt: number;
  /** The folder's path (under the results folder as given). */
  dir: string;
}

/** A file of a results folder as read: the parsed value, its bytes and its path. */
export interface ResultsFile<T> {
  value: T;
  bytes: Buffer;
  path: string;
}

/** The bytes of a file, or undefined when it does not exist. */
async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Every attempt folder of a results folder, by incident id then attempt number (so
 * `attempt-10` comes after `attempt-2`). Folders not named `attempt-<k>` and staging folders
 * are left out.
 *
 * @example
 * ```ts
 * for (const { incidentId, attempt, dir } of await listAttemptFolders("results/baseline"))
 *   console.log(incidentId, attempt, dir);
 * ```
 */
export async function listAttemptFolders(outDir: string): Promise<AttemptFolder[]> {
  const folders: AttemptFolder[] = [];
  const entries = await readdir(outDir, { withFileTypes: true });
  const incidentIds = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const incidentId of incidentIds) {
    const inner = await readdir(join(outDir, incidentId), { withFileTypes: true });
    const numbers = inner
      .filter((entry) => entry.isDirectory())
      .map((entry) => attemptNumber(entry.name))
      .filter((value): value is number => value !== undefined)
      .sort((a, b) => a - b);
    for (const attempt of numbers)
      folders.push({ incidentId, attempt, dir: join(outDir, incidentId, `attempt-${attempt}`) });
  }
  return folders;
}

/**
 * Reads a finished attempt (`succeeded`, `agent-error` or `limit-exceeded`) made for
 * `identity` (see `matchAttempt`); undefined when the record is missing, invalid, of other
 * inputs, or not finished (an interrupted attempt is redone). An `infra-error` attempt is
 * returned too with `keepInfraErrors` (resume keeps it unless rerunning infra errors is asked).
 * A record written before per-incident identities whose whole-dataset hash still matches
 * (`datasetDigest`: the dataset did not change) is migrated in place: its attempt.json gains
 * `incidentDigest` and the per-incident `inputHash`, written atomically.
 *
 * @example
 * ```ts
 * const record = await readFinishedAttempt(attemptDir(outDir, "zklite-142", 1), identity);
 * if (!record) await runItAgain();
 * ```
 */
export async function readFinishedAttempt(
  dir: string,
  identity: AttemptIdentity & {
    datasetDigest?: string;
    earlierIncidentDigests?: readonly string[];
  },
  options: { keepInfraErrors?: boolean } = {},
): Promise<Attempt | undefined> {
  // A missing or invalid record is an attempt that did not finish: it is redone.
  const read = (await readAttempt(dir, { files: ["attempt"] })).attempt;
  if (read.state !== "valid") return undefined;
  const record = read.value;
  const kept =
    isFinished(record.status) ||
    (options.keepInfraErrors === true && record.status === "infra-error");
  const match = matchAttempt(record, identity);
  if (!kept || match === "stale") return undefined;
  if (match === "current") return record;
  const migrated: Attempt = {
    ...record,
    incidentDigest: identity.incidentDigest,
    inputHash: attemptInputHash(identity),
  };
  await writeFileAtomic(join(dir, ATTEMPT_FILES.attempt), serialize(migrated));
  return migrated;
}

async function readResultsFile<T>(
  path: string,
  parse: (input: unknown, options?: ParseOptions) => T,
  missing: string | undefined,
): Promise<ResultsFile<T> | undefined> {
  const bytes = await readIfPresent(path);
  if (bytes === undefined) {
    if (missing === undefined) return undefined;
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `${path}: no such file; ${missing}`,
      data: { path },
    });
  }
  return { value: parse(bytes, { source: path }), bytes, path };
}

/** Options of {@link readRunInfo} and {@link readSummary}. */
export interface ReadResultsFileOptions {
  /** Throw `FILE_NOT_FOUND` when the file is missing instead of returning undefined. Default false. */
  required?: boolean;
}

/**
 * Reads a results folder's `run.json`.
 *
 * @throws DistDebugError `INVALID_FILE` when it is invalid; `FILE_NOT_FOUND` when it is
 * missing and `required` (the message asks whether the folder was made by `distdebug run`).
 * @example
 * ```ts
 * const run = await readRunInfo("results/baseline", { required: true });
 * console.log(run.value.dataset.digest);
 * ```
 */
export async function readRunInfo(
  outDir: string,
  options: { required: true },
): Promise<ResultsFile<RunInfo>>;
export async function readRunInfo(
  outDir: string,
  options?: ReadResultsFileOptions,
): Promise<ResultsFile<RunInfo> | undefined>;
export async function readRunInfo(
  outDir: string,
  options: ReadResultsFileOptions = {},
): Promise<ResultsFile<RunInfo> | undefined> {
  const missing = `is ${outDir} a results folder made by distdebug run?`;
  return readResultsFile(runInfoPath(outDir), parseRunInfo, options.required ? missing : undefined);
}

/**
 * Reads a results folder's `summary.json`.
 *
 * @throws DistDebugError `INVALID_FILE` when it is invalid; `FILE_NOT_FOUND` when it is
 * missing and `required` (the message says to run `distdebug score` first).
 * @example
 * ```ts
 * const summary = await readSummary("results/baseline", { required: true });
 * console.log(summary.value.metrics.blockCoverage.mean);
 * ```
 */
export async function readSummary(
  outDir: string,
  options: { required: true },
): Promise<ResultsFile<Summary>>;
export async function readSummary(
  outDir: string,
  options?: ReadResultsFileOptions,
): Promise<ResultsFile<Summary> | undefined>;
export async function readSummary(
  outDir: string,
  options: ReadResultsFileOptions = {},
): Promise<ResultsFile<Summary> | undefined> {
  const missing = `run \`distdebug score ${outDir}\` first to write it`;
  return readResultsFile(summaryPath(outDir), parseSummary, options.required ? missing : undefined);
}

/**
 * Writes a results folder's `run.json` atomically.
 *
 * @example
 * ```ts
 * await writeRunInfo("results/baseline", buildRunInfo({ config, dataset }));
 * ```
 */
export async function writeRunInfo(outDir: string, info: RunInfo): Promise<void> {
  await writeFileAtomic(runInfoPath(outDir), serialize(info));
}

/**
 * Writes a results folder's `summary.json` atomically.
 *
 * @example
 * ```ts
 * await writeSummary("results/baseline", summarize({ name, attempts, incidents }));
 * ```
 */
export async function writeSummary(outDir: string, summary: Summary): Promise<void> {
  await writeFileAtomic(summaryPath(outDir), serialize(summary));
}
