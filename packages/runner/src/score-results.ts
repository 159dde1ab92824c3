import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type Dataset,
  type DatasetIncident,
  loadDataset,
  loadGold,
  openIncidentRepository,
} from "@distdebug/dataset";
import {
  ATTEMPT_FILES,
  attemptDir,
  attemptFileProblem,
  attemptPath,
  isFinished,
  matchAttempt,
  readAttempt,
  readRunInfo,
  writeSummary,
} from "@distdebug/results";
import {
  type Attempt,
  type DiagnosisScores,
  type Gold,
  type RunInfo,
  type Summary,
  writeFileAtomic,
} from "@distdebug/schema";
import { type AttemptRecord, type IncidentRecord, summarize } from "@distdebug/stats";
import { defaultCacheDir } from "@distdebug/workspace";
import {
  countCacheDirOf,
  createIncidentScorer,
  type IncidentScorer,
  scoreAttemptFolder,
} from "./attempt-scoring.js";
import type { MirrorOptions } from "./find-mirror.js";
import { mirrorOf } from "./prepared-incident.js";
import { HARNESS_VERSION } from "./version.js";

/**
 * An event of {@link scoreResults}: one attempt scored. `reused`: its diagnosis_scores.json
 * was made from the same inputs and kept as it is (nothing scored); `changed`: the file was
 * (or, without `write`, would be) rewritten.
 */
export interface ScoreEvent {
  type: "attempt-score";
  incidentId: string;
  attempt: number;
  reused: boolean;
  changed: boolean;
}

/** Options of {@link scoreResults}. */
export interface ScoreResultsOptions {
  /** The results folder (`results/<config>`), with its run.json. */
  outDir: string;
  /** Attempts per incident to count (1..N). Default: the run config's `run.attempts`. */
  attempts?: number;
  /** The dataset; default the one run.json names. */
  dataset?: Dataset;
  cacheDir?: string;
  /**
   * Keep the repository size's row counts in `<cacheDir>/row-counts` across runs (by blob id
   * and counting rule; a damaged entry is counted again). Default true; false counts them once
   * per process.
   */
  countCache?: boolean;
  /** Local mirrors of the remote repositories (the catalog's), used instead of clones. */
  mirrors?: MirrorOptions;
  /** Bootstrap seed and resamples for the summary (defaults of @distdebug/stats). */
  seed?: number;
  resamples?: number;
  /** Write diagnosis_scores.json files and summary.json. Default true. */
  write?: boolean;
  /**
   * Score every attempt again, even those whose diagnosis_scores.json was made from the same
   * inputs (`inputHash`). Default false: such files are reused as they are.
   */
  rescore?: boolean;
  onEvent?: (event: ScoreEvent) => void;
}

/** What {@link scoreResults} found and wrote. */
export interface ScoreResultsResult {
  summary: Summary;
  /** Attempts whose diagnosis_scores.json was rewritten because it differed. */
  changed: number;
  /** Attempts whose diagnosis_scores.json was made from the same inputs and kept. */
  reused: number;
  /** Attempts scored (their inputs changed, they had no scores, or `rescore` was asked). */
  rescored: number;
  /** Attempts with attempt.json from another config or dataset: not counted. */
  stale: { incidentId: string; attempt: number }[];
  /** Attempts whose attempt.json could not be read, one line each naming it: not counted. */
  invalid: string[];
  /** Incidents of the results without gold labels (the catalog): recorded, not scored. */
  unscored: string[];
}

/** What scoring one results folder shares across its incidents. */
interface ScoreRun {
  options: ScoreResultsOptions;
  outDir: string;
  run: RunInfo;
  dataset: Dataset;
  attemptsPerIncident: number;
  cacheDir: string;
  result: Omit<ScoreResultsResult, "summary">;
  records: AttemptRecord[];
  incidents: IncidentRecord[];
}

/**
 * Scores every attempt of a results folder with the one scoring path of `run` and `verify`
 * (`scoreAttemptFolder`: the diagnosis against the gold on the buggy revision read from the
 * object store, never a workspace copy), rewrites diagnosis_scores.json where it differs, and
 * writes summary.json. An attempt whose diagnosis_scores.json was made from the same inputs
 * (diagnosis and trajectory bytes, gold, incident, evaluator version and parameters) is reused
 * as it is unless `rescore`. Pure: the same inputs give the same bytes. Attempts whose input
 * hash does not match the run (another config or dataset) are reported as stale and not counted.
 *
 * @example
 * ```ts
 * const { summary, reused, rescored } = await scoreResults({ outDir: "results/baseline", attempts: 3 });
 * ```
 */
export async function scoreResults(options: ScoreResultsOptions): Promise<ScoreResultsResult> {
  const context = await scoreRun(options);
  const present = new Set(await readdir(context.outDir));
  for (const incident of context.dataset.incidents)
    if (present.has(incident.id)) await scoreIncident(context, incident);
  const summary = summarize({
    name: context.run.name,
    attempts: context.records,
    incidents: context.incidents,
    attemptsPerIncident: context.attemptsPerIncident,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
  });
  if (options.write ?? true) await writeSummary(context.outDir, summary);
  return { summary, ...context.result };
}

/** The run, its dataset and the counters of scoring a results folder. */
async function scoreRun(options: ScoreResultsOptions): Promise<ScoreRun> {
  const run = (await readRunInfo(options.outDir, { required: true })).value;
  return {
    options,
    outDir: resolve(options.outDir),
    run,
    dataset: options.dataset ?? (await loadDataset(run.dataset.path ?? "")),
    attemptsPerIncident: options.attempts ?? run.config.run.attempts,
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    result: { changed: 0, reused: 0, rescored: 0, stale: [], invalid: [], unscored: [] },
    records: [],
    incidents: [],
  };
}

/**
 * Scores one incident's attempts. Incidents without labels are not scored; the repository of
 * one with labels is opened only when an attempt must be scored (not when every one is reused).
 */
async function scoreIncident(context: ScoreRun, incident: DatasetIncident): Promise<void> {
  const gold = await loadGold(incident);
  if (!gold) {
    context.result.unscored.push(incident.id);
    return;
  }
  context.incidents.push(incidentRecord(incident, gold));
  const { cacheDir, options } = context;
  const scorer = createIncidentScorer({
    incident,
    gold,
    countCacheDir: countCacheDirOf(cacheDir, options.countCache),
    repository: async () =>
      openIncidentRepository(incident, {
        cacheDir,
        mirror: await mirrorOf(incident, options.mirrors),
      }),
  });
  try {
    for (let attempt = 1; attempt <= context.attemptsPerIncident; attempt++)
      await scoreOneAttempt(context, incident, scorer, attempt);
  } finally {
    // One incident at a time: its object reader and the worker's evaluator are let go.
    await scorer.close();
  }
}

function incidentRecord(incident: DatasetIncident, gold: Gold): IncidentRecord {
  return {
    id: incident.id,
    system: incident.incident.system,
    languages: incident.incident.languages,
    category: incident.incident.category,
    clues: incident.incident.clues,
    goldBlocks: gold.blocks.length,
  };
}

/** The attempt's record when it belongs to this run; stale and unreadable ones are noted. */
async function currentRecord(
  context: ScoreRun,
  incident: DatasetIncident,
  attempt: number,
): Promise<Attempt | undefined> {
  const dir = attemptDir(context.outDir, incident.id, attempt);
  const read = (await readAttempt(dir, { files: ["attempt"] })).attempt;
  if (read.state === "missing") return undefined;
  if (read.state === "invalid") {
    context.result.invalid.push(attemptFileProblem(read) ?? read.path);
    return undefined;
  }
  const { run, dataset } = context;
  const match = matchAttempt(read.value, {
    harnessVersion: HARNESS_VERSION,
    configHash: run.configHash,
    incidentId: incident.id,
    incidentDigest: incident.digest,
    earlierIncidentDigests: incident.earlierDigests,
    attempt,
    ...(run.dataset.digest === dataset.digest ? { datasetDigest: dataset.digest } : {}),
  });
  if (match !== "stale") return read.value;
  context.result.stale.push({ incidentId: incident.id, attempt });
  return undefined;
}

/** Scores one attempt of the run (a finished one) and records it for the summary. */
async function scoreOneAttempt(
  context: ScoreRun,
  incident: DatasetIncident,
  scorer: IncidentScorer,
  attempt: number,
): Promise<void> {
  const record = await currentRecord(context, incident, attempt);
  if (!record) return;
  const scores = isFinished(record.status)
    ? await scoreFinished(context, record, scorer)
    : undefined;
  context.records.push({
    incidentId: record.incidentId,
    attempt: record.attempt,
    status: record.status,
    usage: record.usage,
    ...(scores ? { metrics: scores.metrics } : {}),
    ...(scores?.search ? { search: scores.search } : {}),
  });
}

/** Scores (or reuses the scores of) a finished attempt; writes them when they changed. */
async function scoreFinished(
  context: ScoreRun,
  record: Attempt,
  scorer: IncidentScorer,
): Promise<DiagnosisScores> {
  const { incidentId, attempt } = record;
  const dir = attemptDir(context.outDir, incidentId, attempt);
  const scored = await scoreAttemptFolder({
    dir,
    status: record.status,
    scorer,
    reuse: context.options.rescore !== true,
    label: attemptPath(incidentId, attempt),
  });
  const { result } = context;
  if (scored.reused) result.reused += 1;
  else result.rescored += 1;
  if (scored.changed) {
    result.changed += 1;
    if (context.options.write ?? true)
      await writeFileAtomic(join(dir, ATTEMPT_FILES.scores), scored.text);
  }
  context.options.onEvent?.({
    type: "attempt-score",
    incidentId,
    attempt,
    reused: scored.reused,
    changed: scored.changed,
  });
  return scored.scores;
}
