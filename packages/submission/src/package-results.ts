import { join, resolve } from "node:path";
import {
  ATTEMPT_FILES,
  type AttemptFileName,
  type AttemptFiles,
  attemptDir,
  attemptFileProblem,
  attemptPath,
  isFinished,
  listAttemptFolders,
  matchAttempt,
  RESULTS_FILES,
  readAttempt,
  readRunInfo,
  readSummary,
  summaryPath,
} from "@distdebug/results";
import {
  type Attempt,
  addUsage,
  emptyUsage,
  errorMessage,
  type LeakFinding,
  type RunInfo,
  type SubmissionManifest,
  serialize,
  sha256Hex,
  type Usage,
  writeFileAtomic,
} from "@distdebug/schema";
import { outputHashProblems } from "./consistency.js";
import { scanTrajectory } from "./leakage-scan.js";
import { type TarEntry, writeTarGz } from "./tar.js";

/** The archive's manifest file name. */
export const MANIFEST_FILE = "manifest.json";

/** Events of {@link packageResults}. */
export type PackageEvent =
  | {
      type: "attempt-check";
      incidentId: string;
      attempt: number;
      problems: number;
      findings: number;
    }
  | { type: "archive-write"; path: string; bytes: number; files: number };

/** Options of {@link packageResults}. */
export interface PackageResultsOptions {
  /** The results folder (`results/<config>`), with run.json. */
  resultsDir: string;
  /** Where to write the archive. Default `<resultsDir>/../<name>.submission.tar.gz`. */
  outFile?: string;
  /**
   * Incidents that must be in the submission. Default: every scorable incident of the run's
   * dataset when its folder is on this machine, else every incident folder of the results.
   */
  incidents?: readonly string[];
  /** Attempts each incident must have. Default: run.json `config.run.attempts`. */
  attempts?: number;
  /**
   * Harness name and version for the manifest. Default: the config's agent type (`baseline`,
   * `mini`, `command`) and the DistDebug version; never what a trajectory names.
   */
  harness?: { name: string; version: string };
  /** Write the archive even when the leakage scan finds something (findings go in the manifest). Default false. */
  allowLeaks?: boolean;
  /** The manifest's `createdAt`. Default now. */
  now?: Date;
  signal?: AbortSignal;
  onEvent?: (event: PackageEvent) => void;
}

/** What {@link packageResults} found and wrote. */
export interface PackageResultsResult {
  /** True when the archive was written: nothing missing or invalid, and no leak (or leaks allowed). */
  ok: boolean;
  /** The archive path, when written. */
  archive?: string;
  manifest?: SubmissionManifest;
  /** Missing or invalid files and unfinished attempts, one line each naming the file. */
  problems: string[];
  /** What the leakage scan of the trajectories flagged. */
  findings: LeakFinding[];
}

/** The whole message of an error (every issue of an invalid file) on one line. */
function oneLine(error: unknown): string {
  return errorMessage(error).trim().replace(/\n\s*/g, "; ");
}

/**
 * The attempt's record was made for this run (its harness and config, and the incident
 * digest it records; an attempt written before per-incident identities: the run's dataset),
 * or a problem line.
 */
function staleProblem(run: RunInfo, record: Attempt, shown: string): string | undefined {
  const match = matchAttempt(record, {
    harnessVersion: run.harness.version,
    configHash: run.configHash,
    incidentId: record.incidentId,
    incidentDigest: record.incidentDigest ?? "",
    attempt: record.attempt,
    datasetDigest: run.dataset.digest,
  });
  return match !== "stale"
    ? undefined
    : `${shown}: made with another config, harness or dataset than run.json (input hash differs)`;
}

/**
 * The incidents a package holds when the caller names none: the incident folders present.
 * Completeness against a dataset is asked for with `incidents` (the CLI's `--dataset`) and is
 * always checked by `verify --dataset`.
 */
async function incidentFolders(dir: string): Promise<string[]> {
  return [...new Set((await listAttemptFolders(dir)).map((folder) => folder.incidentId))];
}

/** What packaging collects from the results folder before it writes anything. */
interface Package {
  options: PackageResultsOptions;
  dir: string;
  run: RunInfo;
  incidents: string[];
  attemptsPerIncident: number;
  problems: string[];
  findings: LeakFinding[];
  /** The files of the archive (but the manifest). */
  files: TarEntry[];
  /** Every attempt file read, valid or not, for the hash check against attempt.json. */
  attemptBytes: Map<string, Uint8Array>;
  usage: Usage;
  attempts: number;
  failed: number;
  scanned: number;
}

/** run.json and summary.json (a missing or invalid summary is a problem). */
async function readPackage(options: PackageResultsOptions): Promise<Package> {
  const dir = resolve(options.resultsDir);
  const runFile = await readRunInfo(options.resultsDir, { required: true });
  const run = runFile.value;
  const pack: Package = {
    options,
    dir,
    run,
    incidents: options.incidents ? [...options.incidents] : await incidentFolders(dir),
    attemptsPerIncident: options.attempts ?? run.config.run.attempts,
    problems: [],
    findings: [],
    files: [{ path: RESULTS_FILES.run, data: runFile.bytes }],
    attemptBytes: new Map(),
    usage: emptyUsage(),
    attempts: 0,
    failed: 0,
    scanned: 0,
  };
  try {
    const summary = await readSummary(options.resultsDir);
    if (summary) pack.files.push({ path: RESULTS_FILES.summary, data: summary.bytes });
    else
      pack.problems.push(
        `${summaryPath(options.resultsDir)}: missing; run distdebug score ${options.resultsDir} first`,
      );
  } catch (error) {
    pack.problems.push(oneLine(error));
  }
  return pack;
}

/** One attempt folder as read for the package, with where it is. */
interface PackagedAttempt {
  incidentId: string;
  attempt: number;
  /** How messages name the folder: under the results folder as given. */
  shown: string;
  folder: AttemptFiles;
}

/**
 * Takes one file of an attempt into the package: its bytes for the hash check, the file when
 * it is valid, a problem when it is invalid, or missing and `required`.
 */
function takeFile<N extends AttemptFileName>(
  pack: Package,
  read: PackagedAttempt,
  name: N,
  required: boolean,
): AttemptFiles[N] {
  const file = read.folder[name];
  const path = attemptPath(read.incidentId, read.attempt, ATTEMPT_FILES[name]);
  if (file.state !== "missing" && file.bytes) pack.attemptBytes.set(path, file.bytes);
  if (file.state === "valid") pack.files.push({ path, data: file.bytes });
  else if (file.state === "invalid" || required) {
    const problem = attemptFileProblem(file);
    if (problem) pack.problems.push(problem);
  }
  return file;
}

/** The record's own problems: made for another run, or an attempt to run again. */
function recordProblems(pack: Package, record: Attempt, shown: string): void {
  const path = join(shown, ATTEMPT_FILES.attempt);
  const stale = staleProblem(pack.run, record, path);
  if (stale) pack.problems.push(stale);
  if (!isFinished(record.status))
    pack.problems.push(
      `${path}: the attempt ended ${record.status}; run it again (distdebug run resumes it)`,
    );
  pack.attempts += 1;
  if (isFinished(record.status) && record.status !== "succeeded") pack.failed += 1;
  pack.usage = addUsage(pack.usage, record.usage);
}

/**
 * Checks one attempt folder: every file re-validated (a failed attempt may lack the
 * diagnosis), its record made for this run and finished, its trajectory scanned for leaks.
 */
async function checkAttempt(pack: Package, incidentId: string, attempt: number): Promise<void> {
  const shown = join(pack.options.resultsDir, attemptPath(incidentId, attempt));
  const before = { problems: pack.problems.length, findings: pack.findings.length };
  const folder = await readAttempt(attemptDir(pack.dir, incidentId, attempt), { label: shown });
  const read: PackagedAttempt = { incidentId, attempt, shown, folder };
  const record = takeFile(pack, read, "attempt", true);
  if (record.state === "valid") recordProblems(pack, record.value, shown);
  const trajectory = takeFile(pack, read, "trajectory", true);
  const succeeded = record.state !== "valid" || record.value.status === "succeeded";
  takeFile(pack, read, "diagnosis", succeeded);
  takeFile(pack, read, "scores", false);
  if (trajectory.state === "valid") {
    pack.scanned += 1;
    pack.findings.push(...scanTrajectory(trajectory.value, { incidentId, attempt }));
  }
  pack.options.onEvent?.({
    type: "attempt-check",
    incidentId,
    attempt,
    problems: pack.problems.length - before.problems,
    findings: pack.findings.length - before.findings,
  });
}

/**
 * The manifest: the model and the harness from the config (and `harness`) only, never from a
 * trajectory (the agent's own file names whatever it wrote); counts, usage, the leakage scan
 * and the sha256 of every file.
 */
function manifestOf(pack: Package): SubmissionManifest {
  const { run, options, files } = pack;
  const model = run.config.model
    ? { provider: run.config.model.provider, name: run.config.model.name }
    : { name: "none" };
  return {
    format: "distdebug.submission/1",
    createdAt: (options.now ?? new Date()).toISOString(),
    name: run.name,
    model,
    harness: {
      name: options.harness?.name ?? run.config.agent.type,
      version: options.harness?.version ?? run.harness.version,
      distdebug: run.harness.version,
    },
    dataset: { name: run.dataset.name, version: run.dataset.version, digest: run.dataset.digest },
    settings: run.config as unknown as Record<string, unknown>,
    usage: pack.usage,
    counts: {
      incidents: pack.incidents.length,
      attempts: pack.attempts,
      attemptsPerIncident: pack.attemptsPerIncident,
      failedAttempts: pack.failed,
    },
    leakage: { scanned: pack.scanned, findings: pack.findings },
    files: files.map((file) => ({
      path: file.path,
      sha256: sha256Hex(file.data),
      bytes: file.data.length,
    })),
  };
}

/** Writes the archive: the manifest first, then the files in path order. */
async function writeArchive(pack: Package): Promise<PackageResultsResult> {
  const { options, dir, run, files } = pack;
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const manifest = manifestOf(pack);
  const archive = resolve(options.outFile ?? join(dir, "..", `${run.name}.submission.tar.gz`));
  const bytes = writeTarGz([
    { path: MANIFEST_FILE, data: Buffer.from(serialize(manifest)) },
    ...files,
  ]);
  await writeFileAtomic(archive, bytes);
  options.onEvent?.({
    type: "archive-write",
    path: archive,
    bytes: bytes.length,
    files: files.length + 1,
  });
  return { ok: true, archive, manifest, problems: pack.problems, findings: pack.findings };
}

/**
 * Packages a results folder as a submission archive (`.tar.gz`): checks that every selected
 * incident has its attempts with `attempt.json`, `trajectory.json` and `diagnosis.json` (a
 * failed attempt may lack the diagnosis), that every attempt was made for this run (its input
 * hash) and its diagnosis and trajectory still match the sha256 its `attempt.json` recorded,
 * re-validates every file (every problem named, each on one line), scans the trajectories
 * for leaks (history, network, reads outside the workspace), and writes `manifest.json`
 * (model, harness, settings, token use and cost, counts, leakage scan, sha256 of every file)
 * with run.json, summary.json and the attempt files. Nothing is written when a file is
 * missing or invalid, or when the scan finds a leak and `allowLeaks` is not set.
 *
 * @example
 * ```ts
 * const result = await packageResults({ resultsDir: "results/baseline", outFile: "submission.tar.gz" });
 * if (!result.ok) console.error(result.problems, result.findings);
 * ```
 */
export async function packageResults(
  options: PackageResultsOptions,
): Promise<PackageResultsResult> {
  const pack = await readPackage(options);
  for (const incidentId of pack.incidents)
    for (let attempt = 1; attempt <= pack.attemptsPerIncident; attempt++) {
      options.signal?.throwIfAborted();
      await checkAttempt(pack, incidentId, attempt);
    }
  const { problems, findings } = pack;
  problems.push(
    ...outputHashProblems(pack.attemptBytes).map((line) => `${options.resultsDir}/${line}`),
  );
  const ok = problems.length === 0 && (findings.length === 0 || options.allowLeaks === true);
  if (!ok) return { ok, problems, findings };
  return writeArchive(pack);
}
