import { join } from "node:path";
import {
  type Attempt,
  DEFAULT_MAX_FILE_BYTES,
  type Diagnosis,
  type DiagnosisScores,
  DistDebugError,
  type ParseOptions,
  parseAttempt,
  parseDiagnosis,
  parseDiagnosisScores,
  parseTrajectory,
  readFileChecked,
  type Trajectory,
} from "@distdebug/schema";
import { ATTEMPT_FILE_LIMITS, ATTEMPT_FILES } from "./layout.js";

/** A file of an attempt folder, by its key in {@link ATTEMPT_FILES}. */
export type AttemptFileName = keyof typeof ATTEMPT_FILES;

/** What each file of an attempt folder parses to. */
export interface AttemptFileValues {
  attempt: Attempt;
  diagnosis: Diagnosis;
  trajectory: Trajectory;
  scores: DiagnosisScores;
}

/**
 * One file of an attempt folder as read: `missing`; `invalid` with the typed error naming the
 * file (too large, not a regular file, unreadable, not valid JSON, not the schema) and its
 * bytes when they could be read; or `valid` with its bytes and parsed value.
 */
export type AttemptFile<T> =
  | { state: "missing"; path: string }
  | { state: "invalid"; path: string; error: DistDebugError<unknown>; bytes?: Buffer }
  | { state: "valid"; path: string; bytes: Buffer; value: T };

/** An attempt folder as read by {@link readAttempt}: the files asked for. */
export type AttemptFiles<K extends AttemptFileName = AttemptFileName> = { dir: string } & {
  [N in K]: AttemptFile<AttemptFileValues[N]>;
};

/** Options of {@link readAttempt}. */
export interface ReadAttemptOptions<K extends AttemptFileName> {
  /** The files to read. Default all four. */
  files?: readonly K[];
  /**
   * How messages name the folder (`zklite-142/attempt-1`, an archive path). Default its path.
   */
  label?: string;
}

const PARSERS: {
  [N in AttemptFileName]: (input: unknown, options?: ParseOptions) => AttemptFileValues[N];
} = {
  attempt: parseAttempt,
  diagnosis: parseDiagnosis,
  trajectory: parseTrajectory,
  scores: parseDiagnosisScores,
};

const ALL_FILES = Object.keys(ATTEMPT_FILES) as AttemptFileName[];

/**
 * Reads one file: its size checked before reading, then its JSON (bounded) and schema. A file
 * that cannot be read (too large, a link, a FIFO, unreadable) is `invalid`.
 */
async function readOne<N extends AttemptFileName>(
  dir: string,
  label: string,
  name: N,
): Promise<AttemptFile<AttemptFileValues[N]>> {
  const fileName = ATTEMPT_FILES[name];
  const path = join(label, fileName);
  let bytes: Buffer;
  try {
    bytes = await readFileChecked(join(dir, fileName), {
      maxBytes: ATTEMPT_FILE_LIMITS[fileName] ?? DEFAULT_MAX_FILE_BYTES,
      label: path,
    });
  } catch (error) {
    if (!DistDebugError.isInstance(error)) throw error;
    return error.code === "FILE_NOT_FOUND"
      ? { state: "missing", path }
      : { state: "invalid", path, error };
  }
  try {
    return { state: "valid", path, bytes, value: PARSERS[name](bytes, { source: path }) };
  } catch (error) {
    if (DistDebugError.isInstance(error)) return { state: "invalid", path, error, bytes };
    throw error;
  }
}

/**
 * Reads an attempt folder (`<incident>/attempt-<k>/`): each file asked for is checked against
 * its size limit ({@link ATTEMPT_FILE_LIMITS}) before it is read and parsed with the bounded
 * JSON parser and its schema. A file's problem never throws: it comes back `missing` or
 * `invalid` with a `DistDebugError` whose message names the file (`FILE_TOO_LARGE`,
 * `NOT_A_FILE`, `INVALID_FILE`), so each caller decides what a problem means (resume redoes
 * the attempt, a report lists it, a package refuses it). The one place results are read from.
 *
 * @example
 * ```ts
 * const folder = await readAttempt(attemptDir("results/baseline", "zklite-142", 1), { files: ["attempt", "scores"] });
 * if (folder.attempt.state === "valid") console.log(folder.attempt.value.status);
 * if (folder.scores.state === "invalid") console.error(folder.scores.error.message);
 * ```
 */
export async function readAttempt<K extends AttemptFileName = AttemptFileName>(
  dir: string,
  options: ReadAttemptOptions<K> = {},
): Promise<AttemptFiles<K>> {
  const names = options.files ?? (ALL_FILES as K[]);
  const label = options.label ?? dir;
  const read = await Promise.all(names.map((name) => readOne(dir, label, name)));
  const folder: Record<string, unknown> = { dir };
  names.forEach((name, index) => {
    folder[name] = read[index];
  });
  return folder as AttemptFiles<K>;
}

/**
 * The one-line problem of a file as read (`<path>: missing`, or the first line of its error),
 * or undefined when it is valid.
 *
 * @example
 * ```ts
 * const problem = attemptFileProblem(folder.diagnosis); // "zklite-142/attempt-1/diagnosis.json: missing"
 * ```
 */
export function attemptFileProblem(file: AttemptFile<unknown>): string | undefined {
  if (file.state === "valid") return undefined;
  if (file.state === "missing") return `${file.path}: missing`;
  return file.error.message.trim().replace(/\n\s*/g, "; ");
}
