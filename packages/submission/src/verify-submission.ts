import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { ATTEMPT_FILES, attemptPath, parseAttemptPath, RESULTS_FILES } from "@distdebug/results";
import { type MirrorOptions, scoreResults } from "@distdebug/runner";
import {
  type DiagnosisScores,
  DistDebugError,
  errorHeadline,
  type LeakFinding,
  parseDiagnosisScores,
  parseRunInfo,
  parseSubmissionManifest,
  parseSummary,
  parseTrajectory,
  type RunInfo,
  type SubmissionManifest,
  type Summary,
  serialize,
  sha256Hex,
} from "@distdebug/schema";
import { expectedSubmission, outputHashProblems, submissionProblems } from "./consistency.js";
import { scanTrajectory } from "./leakage-scan.js";
import { MANIFEST_FILE } from "./package-results.js";
import { SUBMISSION_LAYOUT } from "./submission-layout.js";
import { readTarGzFile, type TarEntry } from "./tar.js";

/** A file of the archive that does not match its manifest. */
export interface ChecksumProblem {
  path: string;
  problem: "missing" | "checksum-mismatch" | "size-mismatch" | "not-in-manifest";
  expected?: string;
  found?: string;
}

/** A packaged score that rescoring did not reproduce. */
export interface ScoreDifference {
  /** `summary.json` or `<incident>/attempt-<k>/diagnosis_scores.json`. */
  path: string;
  /** What differs, for example `metrics.blockCoverage: packaged 1, rescored 0.5`. */
  detail: string;
}

/** Options of {@link verifySubmission}. */
export interface VerifySubmissionOptions {
  /** The `.tar.gz` made by `packageResults`. */
  archive: string;
  /** Rescore the attempts (needs the dataset). Default true. */
  rescore?: boolean;
  /** The benchmark's dataset to rescore against. Default: the one the archive's run.json names. */
  dataset?: Dataset;
  /**
   * Attempts per incident the benchmark requires (a leaderboard's rule, for example 3), checked
   * with `dataset`. Default: the archive's run config's `run.attempts`, which its submitter chose.
   */
  attempts?: number;
  cacheDir?: string;
  /** Local mirrors of the remote repositories (the catalog's), used instead of clones. */
  mirrors?: MirrorOptions;
  /**
   * Keep the repository size's row counts in `<cacheDir>/row-counts` (the verifier's own
   * cache, keyed by blob ids git computed: nothing from the archive goes in). Default true.
   */
  countCache?: boolean;
  /** Where to extract the archive for rescoring. Default a new temporary folder, removed after. */
  workDir?: string;
  signal?: AbortSignal;
}

/** What {@link verifySubmission} found. */
export interface VerifySubmissionResult {
  /** No checksum problem, and (when rescoring) every packaged score reproduced. */
  ok: boolean;
  manifest: SubmissionManifest;
  checksums: ChecksumProblem[];
  /**
   * What makes the submission incomplete or inconsistent, one line each: incidents of the
   * dataset it lacks, the wrong number of attempts per incident (from the run config), files
   * that differ from the hashes in `attempt.json`.
   */
  problems: string[];
  /** Files that no longer parse. */
  invalid: string[];
  /** The leakage scan of the archive's trajectories, redone. */
  findings: LeakFinding[];
  rescored: boolean;
  differences: ScoreDifference[];
  /** Attempts rescoring did not count (input hash of another config or dataset). */
  stale: { incidentId: string; attempt: number }[];
}

const METRICS = ["blockCoverage", "blockPrecision", "fileCoverage", "linePrecision"] as const;

function compareScores(
  path: string,
  packaged: DiagnosisScores,
  rescored: DiagnosisScores,
): ScoreDifference[] {
  const differences: ScoreDifference[] = [];
  for (const [name, value] of Object.entries(packaged.metrics)) {
    const other = rescored.metrics[name as keyof DiagnosisScores["metrics"]];
    if (other !== value)
      differences.push({ path, detail: `metrics.${name}: packaged ${value}, rescored ${other}` });
  }
  if (differences.length === 0)
    differences.push({ path, detail: "the file differs from its rescoring (same metrics)" });
  return differences;
}

function compareSummary(packaged: Summary, rescored: Summary): ScoreDifference[] {
  const differences: ScoreDifference[] = [];
  for (const metric of METRICS) {
    const a = packaged.metrics[metric];
    const b = rescored.metrics[metric];
    if (!a || !b) continue;
    for (const field of ["mean", "low", "high", "n"] as const) {
      if (a[field] !== b[field])
        differences.push({
          path: RESULTS_FILES.summary,
          detail: `metrics.${metric}.${field}: packaged ${a[field]}, rescored ${b[field]}`,
        });
    }
  }
  return differences;
}

function readArchiveRun(archive: string, byPath: ReadonlyMap<string, Uint8Array>): RunInfo {
  const bytes = byPath.get(RESULTS_FILES.run);
  if (!bytes)
    throw new DistDebugError({
      code: "INVALID_FILE",
      message: `${archive}: no ${RESULTS_FILES.run}; not a submission made by distdebug package`,
    });
  return parseRunInfo(bytes, { source: `${archive}:${RESULTS_FILES.run}` });
}

/** The manifest of an archive read with the submission layout, and its files by path. */
async function readArchive(options: VerifySubmissionOptions): Promise<{
  entries: TarEntry[];
  byPath: Map<string, Uint8Array>;
  manifest: SubmissionManifest;
}> {
  const entries = await readTarGzFile(options.archive, {
    layout: SUBMISSION_LAYOUT,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const byPath = new Map(entries.map((entry) => [entry.path, entry.data]));
  const manifestBytes = byPath.get(MANIFEST_FILE);
  if (!manifestBytes)
    throw new DistDebugError({
      code: "INVALID_FILE",
      message: `${options.archive}: no ${MANIFEST_FILE}; not a submission made by distdebug package`,
    });
  const manifest = parseSubmissionManifest(manifestBytes, {
    source: `${options.archive}:${MANIFEST_FILE}`,
  });
  return { entries, byPath, manifest };
}

/** Every file against the manifest's sha256 and size; unlisted files too. */
function checksumProblems(
  manifest: SubmissionManifest,
  entries: readonly TarEntry[],
  byPath: ReadonlyMap<string, Uint8Array>,
): ChecksumProblem[] {
  const checksums: ChecksumProblem[] = [];
  const listed = new Set<string>([MANIFEST_FILE]);
  for (const file of manifest.files) {
    listed.add(file.path);
    const data = byPath.get(file.path);
    if (!data) {
      checksums.push({ path: file.path, problem: "missing" });
      continue;
    }
    const digest = sha256Hex(data);
    if (digest !== file.sha256)
      checksums.push({
        path: file.path,
        problem: "checksum-mismatch",
        expected: file.sha256,
        found: digest,
      });
    else if (data.length !== file.bytes)
      checksums.push({
        path: file.path,
        problem: "size-mismatch",
        expected: String(file.bytes),
        found: String(data.length),
      });
  }
  for (const entry of entries)
    if (!listed.has(entry.path)) checksums.push({ path: entry.path, problem: "not-in-manifest" });
  return checksums;
}

/** The trajectories re-validated (invalid ones named) and re-scanned for leaks. */
function scanTrajectories(entries: readonly TarEntry[]): {
  invalid: string[];
  findings: LeakFinding[];
} {
  const invalid: string[] = [];
  const findings: LeakFinding[] = [];
  for (const entry of entries) {
    const located = parseAttemptPath(entry.path);
    if (located?.file !== ATTEMPT_FILES.trajectory) continue;
    try {
      const trajectory = parseTrajectory(entry.data, { source: entry.path });
      findings.push(
        ...scanTrajectory(trajectory, { incidentId: located.incidentId, attempt: located.attempt }),
      );
    } catch (error) {
      invalid.push(errorHeadline(error));
    }
  }
  return { invalid, findings };
}

/** The dataset to rescore against: the one given, else the run's folder if it is here. */
async function rescoringDataset(
  options: VerifySubmissionOptions,
  run: RunInfo,
  manifest: SubmissionManifest,
): Promise<Dataset> {
  if (options.dataset) return options.dataset;
  const path = run.dataset.path;
  if (!path || !existsSync(path))
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${options.archive}: rescoring needs the benchmark dataset (${manifest.dataset.name} ${manifest.dataset.version}); the run's dataset folder ${path ?? "(none)"} is not on this machine, so pass it (distdebug verify --dataset <dir>)`,
    });
  return loadDataset(path);
}

/** What rescoring an archive found. */
interface Rescoring {
  differences: ScoreDifference[];
  stale: { incidentId: string; attempt: number }[];
  /** The packaged summary.json, when it does not parse. */
  invalid: string[];
}

/** The packaged summary (its bootstrap seed and resamples are the rescoring's). */
function packagedSummary(byPath: ReadonlyMap<string, Uint8Array>, invalid: string[]) {
  const bytes = byPath.get(RESULTS_FILES.summary);
  if (!bytes) return undefined;
  try {
    return parseSummary(bytes, { source: RESULTS_FILES.summary });
  } catch (error) {
    invalid.push(errorHeadline(error));
    return undefined;
  }
}

/**
 * The packaged and rescored scores when they differ. A packaged file of an earlier release has
 * no `inputHash`: it is compared without the rescoring's.
 */
function differingScores(
  path: string,
  packagedBytes: Uint8Array,
  rescoredBytes: Uint8Array,
): [DiagnosisScores, DiagnosisScores] | undefined {
  if (Buffer.compare(Buffer.from(rescoredBytes), Buffer.from(packagedBytes)) === 0)
    return undefined;
  const packaged = parseDiagnosisScores(packagedBytes, { source: path });
  const { inputHash, ...withoutHash } = parseDiagnosisScores(rescoredBytes, { source: path });
  const rescored = packaged.inputHash === undefined ? withoutHash : { ...withoutHash, inputHash };
  return serialize(packaged) === serialize(rescored) ? undefined : [packaged, rescored];
}

/** Each packaged diagnosis_scores.json the rescoring in `work` did not reproduce. */
async function scoreDifferences(work: string, entries: readonly TarEntry[]) {
  const differences: ScoreDifference[] = [];
  for (const entry of entries) {
    if (parseAttemptPath(entry.path)?.file !== ATTEMPT_FILES.scores) continue;
    const rescoredBytes = await readFile(join(work, entry.path));
    try {
      const differing = differingScores(entry.path, entry.data, rescoredBytes);
      if (differing) differences.push(...compareScores(entry.path, ...differing));
    } catch {
      differences.push({
        path: entry.path,
        detail: "the packaged file is not valid diagnosis scores",
      });
    }
  }
  return differences;
}

/**
 * Extracts the archive and rescores every attempt with `scoreResults` (the one scoring path),
 * never reusing a packaged diagnosis_scores.json (its `inputHash` is the submitter's word).
 */
async function rescoreArchive(
  options: VerifySubmissionOptions,
  entries: readonly TarEntry[],
  run: RunInfo,
  dataset: Dataset | undefined,
): Promise<Rescoring> {
  const byPath = new Map(entries.map((entry) => [entry.path, entry.data]));
  const invalid: string[] = [];
  const work = options.workDir ?? (await mkdtemp(join(tmpdir(), "distdebug-verify-")));
  try {
    // A scratch folder of this process, removed after: no temporary file, rename or fsync each.
    for (const entry of entries) {
      await mkdir(dirname(join(work, entry.path)), { recursive: true });
      await writeFile(join(work, entry.path), entry.data);
    }
    const packaged = packagedSummary(byPath, invalid);
    const result = await scoreResults({
      outDir: work,
      attempts: options.attempts ?? run.config.run.attempts,
      ...(dataset ? { dataset } : {}),
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      ...(options.mirrors ? { mirrors: options.mirrors } : {}),
      ...(options.countCache === undefined ? {} : { countCache: options.countCache }),
      ...(packaged ? { seed: packaged.method.seed, resamples: packaged.method.resamples } : {}),
      write: true,
      rescore: true,
    });
    const differences = await scoreDifferences(work, entries);
    if (packaged) differences.push(...compareSummary(packaged, result.summary));
    for (const item of result.stale)
      differences.push({
        path: attemptPath(item.incidentId, item.attempt, ATTEMPT_FILES.attempt),
        detail: "not rescored: made with another config or dataset",
      });
    return { differences, stale: result.stale, invalid };
  } finally {
    if (!options.workDir) await rm(work, { recursive: true, force: true });
  }
}

/**
 * Verifies a submission archive from the archive alone: every file's sha256 and size against
 * `manifest.json` (a changed, missing or unlisted file is named), every diagnosis and
 * trajectory against the sha256 its `attempt.json` recorded when it ran, completeness (every
 * scorable incident of the dataset, the run config's `run.attempts` attempts each; never the
 * manifest's own counts) when rescoring, every file re-validated,
 * the trajectories re-scanned for leaks, and (by default) every attempt rescored against the
 * benchmark's gold with `scoreResults` on the extracted folder (`rescore`: no packaged score
 * is reused), reporting each packaged score (`diagnosis_scores.json`, `summary.json`) the
 * rescoring does not reproduce. Rescoring uses the summary's own bootstrap seed and resamples.
 *
 * @throws DistDebugError `INVALID_ARCHIVE` for an unreadable archive, `INVALID_FILE` for a
 * missing or invalid manifest.
 * @example
 * ```ts
 * const result = await verifySubmission({ archive: "submission.tar.gz" });
 * for (const problem of result.checksums) console.error(problem.path, problem.problem);
 * ```
 */
export async function verifySubmission(
  options: VerifySubmissionOptions,
): Promise<VerifySubmissionResult> {
  const { entries, byPath, manifest } = await readArchive(options);
  const checksums = checksumProblems(manifest, entries, byPath);
  const { invalid, findings } = scanTrajectories(entries);
  const rescore = options.rescore ?? true;
  const run = readArchiveRun(options.archive, byPath);
  const dataset = rescore ? await rescoringDataset(options, run, manifest) : options.dataset;
  // Completeness is checked against the dataset the caller names (`verify --dataset`, the
  // official one); without it the archive is rescored against its own run's dataset as is.
  const problems = options.dataset
    ? submissionProblems(byPath, expectedSubmission(options.dataset, run, options.attempts))
    : outputHashProblems(byPath);
  const rescored = rescore
    ? await rescoreArchive(options, entries, run, dataset)
    : { differences: [], stale: [], invalid: [] };
  invalid.push(...rescored.invalid);
  const { differences, stale } = rescored;
  return {
    ok:
      checksums.length === 0 &&
      problems.length === 0 &&
      invalid.length === 0 &&
      differences.length === 0,
    manifest,
    checksums,
    problems,
    invalid,
    findings,
    rescored: rescore,
    differences,
    stale,
  };
}
