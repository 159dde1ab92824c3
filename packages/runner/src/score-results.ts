import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Dataset, loadDataset, loadGold } from "@distdebug/dataset";
import {
  ATTEMPT_FILES,
  attemptDir,
  matchAttempt,
  readRunInfo,
  writeSummary,
} from "@distdebug/results";
import {
  type Attempt,
  type DiagnosisScores,
  MAX_DIAGNOSIS_BYTES,
  parseAttempt,
  parseDiagnosis,
  type RunInfo,
  readFileChecked,
  type Summary,
  serialize,
  writeFileAtomic,
} from "@distdebug/schema";
import { type AttemptRecord, type IncidentRecord, summarize } from "@distdebug/stats";
import { defaultCacheDir } from "@distdebug/workspace";
import { readAttemptTrajectory } from "./attempt-trajectory.js";
import type { MirrorOptions } from "./find-mirror.js";
import { type PreparedIncident, prepareIncident } from "./prepared-incident.js";
import { HARNESS_VERSION } from "./version.js";

/** Options of {@link scoreResults}. */
export interface ScoreResultsOptions {
  /** The results folder (`results/<config>`), with its run.json. */
  outDir: string;
  /** Attempts per incident to count (1..N). Default: the run config's `run.attempts`. */
  attempts?: number;
  /** The dataset; default the one run.json names. */
  dataset?: Dataset;
  cacheDir?: string;
  /** Local mirrors of the remote repositories (the catalog's), used instead of clones. */
  mirrors?: MirrorOptions;
  /** Bootstrap seed and resamples for the summary (defaults of @distdebug/stats). */
  seed?: number;
  resamples?: number;
  /** Write diagnosis_scores.json files and summary.json. Default true. */
  write?: boolean;
  onEvent?: (event: {
    type: "attempt-score";
    incidentId: string;
    attempt: number;
    changed: boolean;
  }) => void;
}

/** What {@link scoreResults} found and wrote. */
export interface ScoreResultsResult {
  summary: Summary;
  /** Attempts whose diagnosis_scores.json was rewritten because it differed. */
  changed: number;
  /** Attempts with attempt.json from another config or dataset: not counted. */
  stale: { incidentId: string; attempt: number }[];
  /** Incidents of the results without gold labels (the catalog): recorded, not scored. */
  unscored: string[];
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Rescores every attempt of a results folder from its files (the diagnosis against the gold
 * on the pristine buggy tree), rewrites diagnosis_scores.json where it differs, and writes
 * summary.json. Pure: the same inputs give the same bytes. Attempts whose input hash does not
 * match the run (another config or dataset) are reported as stale and not counted.
 *
 * @example
 * ```ts
 * const { summary } = await scoreResults({ outDir: "results/baseline", attempts: 3 });
 * ```
 */
export async function scoreResults(options: ScoreResultsOptions): Promise<ScoreResultsResult> {
  const outDir = resolve(options.outDir);
  const run: RunInfo = (await readRunInfo(options.outDir, { required: true })).value;
  const dataset = options.dataset ?? (await loadDataset(run.dataset.path ?? ""));
  const attemptsPerIncident = options.attempts ?? run.config.run.attempts;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const write = options.write ?? true;
  const present = new Set(await readdir(outDir));
  const incidents = dataset.incidents.filter((incident) => present.has(incident.id));
  const records: AttemptRecord[] = [];
  const incidentRecords: IncidentRecord[] = [];
  const stale: { incidentId: string; attempt: number }[] = [];
  const unscored: string[] = [];
  let changed = 0;
  await mkdir(join(cacheDir, "tmp"), { recursive: true });
  const scratch = await mkdtemp(join(cacheDir, "tmp", "score-"));
  try {
    for (const incident of incidents) {
      // Incidents without labels are not scored; their repository is not even needed.
      const gold = await loadGold(incident);
      if (!gold) {
        unscored.push(incident.id);
        continue;
      }
      let prepared: PreparedIncident | undefined;
      incidentRecords.push({
        id: incident.id,
        system: incident.incident.system,
        languages: incident.incident.languages,
        category: incident.incident.category,
        clues: incident.incident.clues,
        goldBlocks: gold.blocks.length,
      });
      let materialized = false;
      for (let attempt = 1; attempt <= attemptsPerIncident; attempt++) {
        const dir = attemptDir(outDir, incident.id, attempt);
        const text = await readText(join(dir, ATTEMPT_FILES.attempt));
        if (text === undefined) continue;
        let record: Attempt;
        try {
          record = parseAttempt(text, { source: join(dir, ATTEMPT_FILES.attempt) });
        } catch {
          continue;
        }
        const match = matchAttempt(record, {
          harnessVersion: HARNESS_VERSION,
          configHash: run.configHash,
          incidentId: incident.id,
          incidentDigest: incident.digest,
          attempt,
          ...(run.dataset.digest === dataset.digest ? { datasetDigest: dataset.digest } : {}),
        });
        if (match === "stale") {
          stale.push({ incidentId: incident.id, attempt });
          continue;
        }
        let scores: DiagnosisScores | undefined;
        if (
          record.status === "succeeded" ||
          record.status === "agent-error" ||
          record.status === "limit-exceeded"
        ) {
          prepared ??= await prepareIncident({
            incident,
            cacheDir,
            ...(options.mirrors ? { mirrors: options.mirrors } : {}),
          });
          if (!materialized) {
            await prepared.materialize(join(scratch, incident.id));
            materialized = true;
          }
          let diagnosis: ReturnType<typeof parseDiagnosis> | undefined;
          try {
            // The runner's cap: a diagnosis over 1 MiB was never the attempt's.
            const path = join(dir, ATTEMPT_FILES.diagnosis);
            const bytes = await readFileChecked(path, { maxBytes: MAX_DIAGNOSIS_BYTES });
            diagnosis = parseDiagnosis(bytes);
          } catch {
            diagnosis = undefined;
          }
          scores = await prepared.score(
            record.status === "succeeded" ? diagnosis : undefined,
            incident.id,
            await readAttemptTrajectory(dir),
          );
          let differs = false;
          if (scores) {
            const bytes = serialize(scores);
            differs = (await readText(join(dir, ATTEMPT_FILES.scores))) !== bytes;
            if (differs) {
              changed += 1;
              if (write) await writeFileAtomic(join(dir, ATTEMPT_FILES.scores), bytes);
            }
          }
          options.onEvent?.({
            type: "attempt-score",
            incidentId: incident.id,
            attempt,
            changed: differs,
          });
        }
        records.push({
          incidentId: record.incidentId,
          attempt: record.attempt,
          status: record.status,
          usage: record.usage,
          ...(scores ? { metrics: scores.metrics } : {}),
          ...(scores?.search ? { search: scores.search } : {}),
        });
      }
      // One incident at a time: its scorer's worker is not needed after its attempts.
      await prepared?.close();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const summary = summarize({
    name: run.name,
    attempts: records,
    incidents: incidentRecords,
    attemptsPerIncident,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
  });
  if (write) await writeSummary(outDir, summary);
  return { summary, changed, stale, unscored };
}
