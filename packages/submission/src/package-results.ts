import { join, resolve } from "node:path";
import {
  ATTEMPT_FILES,
  attemptDir,
  attemptPath,
  listAttemptFolders,
  matchAttempt,
  RESULTS_FILES,
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
  parseAttempt,
  parseDiagnosis,
  parseDiagnosisScores,
  parseTrajectory,
  type RunInfo,
  readFileIfExists,
  type SubmissionManifest,
  serialize,
  sha256Hex,
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
async function defaultIncidents(_run: RunInfo, dir: string): Promise<string[]> {
  return incidentFolders(dir);
}

async function incidentFolders(dir: string): Promise<string[]> {
  return [...new Set((await listAttemptFolders(dir)).map((folder) => folder.incidentId))];
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
  const dir = resolve(options.resultsDir);
  const runFile = await readRunInfo(options.resultsDir, { required: true });
  const run: RunInfo = runFile.value;
  const attemptsPerIncident = options.attempts ?? run.config.run.attempts;
  const incidents = options.incidents ? [...options.incidents] : await defaultIncidents(run, dir);
  const problems: string[] = [];
  const findings: LeakFinding[] = [];
  const files: TarEntry[] = [{ path: RESULTS_FILES.run, data: runFile.bytes }];
  /** Every attempt file read, valid or not, for the hash check against attempt.json. */
  const attemptBytes = new Map<string, Uint8Array>();
  try {
    const summary = await readSummary(options.resultsDir);
    if (summary) files.push({ path: RESULTS_FILES.summary, data: summary.bytes });
    else
      problems.push(
        `${summaryPath(options.resultsDir)}: missing; run distdebug score ${options.resultsDir} first`,
      );
  } catch (error) {
    problems.push(oneLine(error));
  }
  let usage = emptyUsage();
  let attempts = 0;
  let failed = 0;
  let scanned = 0;
  for (const incidentId of incidents) {
    for (let attempt = 1; attempt <= attemptsPerIncident; attempt++) {
      options.signal?.throwIfAborted();
      const folder = attemptDir(dir, incidentId, attempt);
      const shown = join(options.resultsDir, attemptPath(incidentId, attempt));
      const before = { problems: problems.length, findings: findings.length };
      const read = async <T>(
        name: string,
        parse: (bytes: Buffer, o: { source: string }) => T,
        required: boolean,
      ) => {
        const bytes = await readFileIfExists(join(folder, name));
        if (bytes === undefined) {
          if (required) problems.push(`${join(shown, name)}: missing`);
          return undefined;
        }
        attemptBytes.set(attemptPath(incidentId, attempt, name), bytes);
        try {
          const value = parse(bytes, { source: join(shown, name) });
          files.push({ path: attemptPath(incidentId, attempt, name), data: bytes });
          return value;
        } catch (error) {
          problems.push(oneLine(error));
          return undefined;
        }
      };
      const record: Attempt | undefined = await read(ATTEMPT_FILES.attempt, parseAttempt, true);
      const stale = record && staleProblem(run, record, join(shown, ATTEMPT_FILES.attempt));
      if (stale) problems.push(stale);
      if (record && (record.status === "infra-error" || record.status === "interrupted"))
        problems.push(
          `${join(shown, ATTEMPT_FILES.attempt)}: the attempt ended ${record.status}; run it again (distdebug run resumes it)`,
        );
      const trajectory = await read(ATTEMPT_FILES.trajectory, parseTrajectory, true);
      await read(
        ATTEMPT_FILES.diagnosis,
        parseDiagnosis,
        record?.status === "succeeded" || record === undefined,
      );
      await read(ATTEMPT_FILES.scores, parseDiagnosisScores, false);
      if (record) {
        attempts += 1;
        if (record.status === "agent-error" || record.status === "limit-exceeded") failed += 1;
        usage = addUsage(usage, record.usage);
      }
      if (trajectory) {
        scanned += 1;
        findings.push(...scanTrajectory(trajectory, { incidentId, attempt }));
      }
      options.onEvent?.({
        type: "attempt-check",
        incidentId,
        attempt,
        problems: problems.length - before.problems,
        findings: findings.length - before.findings,
      });
    }
  }
  problems.push(...outputHashProblems(attemptBytes).map((line) => `${options.resultsDir}/${line}`));
  const ok = problems.length === 0 && (findings.length === 0 || options.allowLeaks === true);
  if (!ok) return { ok, problems, findings };
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // The model and the harness come from the config (and --harness) only: a trajectory is the
  // agent's own file and names whatever the agent wrote.
  const model = run.config.model
    ? { provider: run.config.model.provider, name: run.config.model.name }
    : { name: "none" };
  const manifest: SubmissionManifest = {
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
    usage,
    counts: { incidents: incidents.length, attempts, attemptsPerIncident, failedAttempts: failed },
    leakage: { scanned, findings },
    files: files.map((file) => ({
      path: file.path,
      sha256: sha256Hex(file.data),
      bytes: file.data.length,
    })),
  };
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
  return { ok, archive, manifest, problems, findings };
}
