import type { Dataset } from "@distdebug/dataset";
import { ATTEMPT_FILES, attemptPath, parseAttemptPath } from "@distdebug/results";
import { attemptEnvelopeProblems, parseAttempt, type RunInfo, sha256Hex } from "@distdebug/schema";

/** A submission's files by relative POSIX path (an archive's entries or a results folder's files). */
export type SubmissionFiles = ReadonlyMap<string, Uint8Array>;

/** What a submission must hold: the incidents and the attempts per incident. */
export interface SubmissionExpectation {
  /** Incident ids, from the dataset (never from the submission's own manifest). */
  incidents: readonly string[];
  /** Attempts per incident: the benchmark's required count, else the run config's `run.attempts`. */
  attempts: number;
  /** Where {@link SubmissionExpectation.attempts} comes from, for messages. */
  attemptsFrom: string;
}

/**
 * What a submission of `run` on `dataset` must hold: every scorable incident of the dataset
 * (the ones with gold labels) and `requiredAttempts` attempts of each (a leaderboard's rule,
 * for example 3), else the run config's `run.attempts`.
 */
export function expectedSubmission(
  dataset: Dataset,
  run: RunInfo,
  requiredAttempts?: number,
): SubmissionExpectation {
  return {
    incidents: dataset.incidents.filter((entry) => entry.scorable).map((entry) => entry.id),
    attempts: requiredAttempts ?? run.config.run.attempts,
    attemptsFrom:
      requiredAttempts === undefined
        ? `the run config has run.attempts ${run.config.run.attempts}`
        : `${requiredAttempts} attempts per incident are required; the run config has run.attempts ${run.config.run.attempts}`,
  };
}

/** The attempt numbers present per incident id (any file of an `attempt-<k>` folder counts). */
function attemptsByIncident(files: SubmissionFiles): Map<string, Set<number>> {
  const found = new Map<string, Set<number>>();
  for (const path of files.keys()) {
    const located = parseAttemptPath(path);
    if (!located) continue;
    const set = found.get(located.incidentId) ?? new Set<number>();
    set.add(located.attempt);
    found.set(located.incidentId, set);
  }
  return found;
}

/** One line per incident of `expected` the submission lacks, and per incident it should not hold. */
export function incidentProblems(
  files: SubmissionFiles,
  expected: SubmissionExpectation,
): string[] {
  const found = attemptsByIncident(files);
  const wanted = new Set(expected.incidents);
  const problems: string[] = [];
  for (const id of expected.incidents)
    if (!found.has(id))
      problems.push(`${id}: missing (an incident of the dataset; the submission has no attempt)`);
  for (const id of found.keys())
    if (!wanted.has(id)) problems.push(`${id}: not a scorable incident of the dataset`);
  return problems;
}

/** One line per attempt missing or beyond `expected.attempts`, for the incidents present. */
export function attemptCountProblems(
  files: SubmissionFiles,
  expected: SubmissionExpectation,
): string[] {
  const problems: string[] = [];
  for (const [id, numbers] of attemptsByIncident(files)) {
    for (let attempt = 1; attempt <= expected.attempts; attempt++)
      if (!files.has(attemptPath(id, attempt, ATTEMPT_FILES.attempt)))
        problems.push(
          `${attemptPath(id, attempt, ATTEMPT_FILES.attempt)}: missing (${expected.attemptsFrom})`,
        );
    for (const attempt of numbers)
      if (attempt > expected.attempts)
        problems.push(`${attemptPath(id, attempt)}: an extra attempt (${expected.attemptsFrom})`);
  }
  return problems;
}

/** Files an attempt's `attempt.json` must hash: what the agent produced (scores are rescored). */
const HASHED = [ATTEMPT_FILES.diagnosis, ATTEMPT_FILES.trajectory] as const;

/**
 * One attempt's files against the sha256 hashes its `attempt.json` recorded when it ran, and
 * its recorded sandbox against the official envelope (`attemptEnvelopeProblems`).
 */
function attemptHashProblems(files: SubmissionFiles, path: string, bytes: Uint8Array): string[] {
  const located = parseAttemptPath(path)!;
  let outputs: Record<string, string>;
  const problems: string[] = [];
  try {
    const record = parseAttempt(bytes, { source: path });
    if (record.incidentId !== located.incidentId || record.attempt !== located.attempt)
      return [
        `${path}: records ${record.incidentId} attempt ${record.attempt}, not the folder it is in`,
      ];
    outputs = record.outputs;
    for (const problem of attemptEnvelopeProblems(record))
      problems.push(`${path}: outside the official sandbox envelope: ${problem}`);
  } catch (error) {
    return [(error instanceof Error ? error.message : String(error)).replace(/\n\s*/g, "; ")];
  }
  for (const name of HASHED) {
    const filePath = attemptPath(located.incidentId, located.attempt, name);
    const data = files.get(filePath);
    const recorded = outputs[name];
    if (data === undefined && recorded !== undefined)
      problems.push(`${filePath}: missing, but attempt.json records its sha256`);
    else if (data !== undefined && recorded === undefined)
      problems.push(`${filePath}: not produced by the run (attempt.json records no sha256 for it)`);
    else if (data !== undefined && sha256Hex(data) !== recorded)
      problems.push(
        `${filePath}: changed after the run (sha256 ${sha256Hex(data)}, attempt.json records ${recorded})`,
      );
  }
  return problems;
}

/** One line per attempt file that differs from the hashes in its `attempt.json`. */
export function outputHashProblems(files: SubmissionFiles): string[] {
  const problems: string[] = [];
  for (const [path, bytes] of files)
    if (parseAttemptPath(path)?.file === ATTEMPT_FILES.attempt)
      problems.push(...attemptHashProblems(files, path, bytes));
  return problems;
}

/**
 * Everything that makes a submission incomplete or inconsistent, one line each naming the
 * file or incident: incidents of the dataset it lacks (or holds beyond it), the wrong number
 * of attempts per incident, and files that differ from the hashes in `attempt.json`.
 *
 * @example
 * ```ts
 * const problems = submissionProblems(files, expectedSubmission(dataset, run));
 * ```
 */
export function submissionProblems(
  files: SubmissionFiles,
  expected: SubmissionExpectation,
): string[] {
  return [
    ...incidentProblems(files, expected),
    ...attemptCountProblems(files, expected),
    ...outputHashProblems(files),
  ];
}
