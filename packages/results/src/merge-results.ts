import { copyFile, link, lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Attempt, acquireFileLock, DistDebugError, type RunInfo } from "@distdebug/schema";
import { removeAttemptLeftovers, stageAttemptFolder } from "./attempt-folder.js";
import { attemptDir, runLockPath } from "./layout.js";
import { type AttemptFile, readAttempt } from "./read-attempt.js";
import {
  type AttemptFolder,
  listAttemptFolders,
  readRunInfo,
  writeRunInfo,
} from "./results-files.js";

/** Options of {@link mergeResults}. */
export interface MergeResultsOptions {
  /** Results folders of one run config: the shards of a run, or runs on disjoint incidents. */
  sources: readonly string[];
  /** The merged results folder; created, or resumed when an earlier merge was interrupted. */
  outDir: string;
  /** `link` (default): hard links where the file system allows, copies elsewhere; `copy`: always copy. */
  files?: "link" | "copy";
  /** On abort, stops between attempts (every merged attempt is whole); rerun to resume. */
  signal?: AbortSignal;
  onEvent?: (event: MergeEvent) => void;
}

/** Progress of {@link mergeResults}. */
export type MergeEvent =
  | { type: "attempt-merge"; incidentId: string; attempt: number; source: string }
  | { type: "attempt-keep"; incidentId: string; attempt: number };

/** Something a complete merge would have and this one lacks. */
export interface MergeGap {
  /** One line naming what is missing, e.g. `shard 3/4` or `zklite-142 attempt 2`. */
  what: string;
}

/** What {@link mergeResults} did. */
export interface MergeResultsResult {
  outDir: string;
  /** Attempt folders copied or linked now. */
  merged: number;
  /** Attempt folders already in `outDir` with the same record (an interrupted merge resumed). */
  kept: number;
  gaps: MergeGap[];
  /** The merged folder's run.json. */
  run: RunInfo;
}

interface Source {
  dir: string;
  run: RunInfo;
}

function conflict(message: string, data: Record<string, unknown> = {}): DistDebugError {
  return new DistDebugError({ code: "RESULTS_CONFLICT", message, data });
}

/** The fields that must agree for attempts to be merged: same config, same dataset, same harness. */
function identity(run: RunInfo): Record<string, string> {
  return {
    name: run.name,
    configHash: run.configHash,
    "dataset.digest": run.dataset.digest,
    "harness.version": run.harness.version,
  };
}

function checkAgreement(sources: readonly Source[]): void {
  const [first, ...rest] = sources;
  if (!first) throw conflict("nothing to merge: name at least one results folder");
  const expected = identity(first.run);
  const problems: string[] = [];
  for (const source of rest) {
    for (const [field, value] of Object.entries(identity(source.run)))
      if (value !== expected[field])
        problems.push(`${source.dir} has ${field} ${value}, ${first.dir} has ${expected[field]}`);
  }
  if (problems.length > 0)
    throw conflict(`the results folders are not of one run:\n  ${problems.join("\n  ")}`, {
      problems,
    });
}

/** Shards: one count, no index twice; the missing indices are gaps. */
function shardGaps(sources: readonly Source[]): MergeGap[] {
  const sharded = sources.filter((source) => source.run.shard);
  if (sharded.length === 0) return [];
  const counts = new Set(sharded.map((source) => source.run.shard?.count));
  if (sharded.length !== sources.length || counts.size !== 1)
    throw conflict(
      `the results folders mix shard layouts: ${sources.map((s) => `${s.dir} (${s.run.shard ? `shard ${s.run.shard.index}/${s.run.shard.count}` : "unsharded"})`).join(", ")}`,
    );
  const count = [...counts][0] ?? 0;
  const byIndex = new Map<number, string>();
  for (const source of sharded) {
    const index = source.run.shard?.index ?? 0;
    const other = byIndex.get(index);
    if (other) throw conflict(`shard ${index}/${count} appears twice: ${other} and ${source.dir}`);
    byIndex.set(index, source.dir);
  }
  const gaps: MergeGap[] = [];
  for (let index = 1; index <= count; index++)
    if (!byIndex.has(index))
      gaps.push({ what: `shard ${index}/${count} (no results folder given)` });
  return gaps;
}

async function readSources(dirs: readonly string[]): Promise<Source[]> {
  const sources: Source[] = [];
  for (const dir of dirs)
    sources.push({ dir, run: (await readRunInfo(dir, { required: true })).value });
  return sources;
}

/** The merged run.json: the sources' shared identity, no shard, the earliest creation time. */
function mergedRun(sources: readonly Source[]): RunInfo {
  const [first] = sources as [Source, ...Source[]];
  const { shard: _shard, ...run } = first.run;
  const createdAt = sources.map((source) => source.run.createdAt).sort()[0] ?? run.createdAt;
  return { ...run, createdAt };
}

async function checkTarget(outDir: string, run: RunInfo): Promise<void> {
  const existing = await readRunInfo(outDir);
  if (!existing) return;
  const previous = identity(existing.value);
  const wanted = identity(run);
  const differs = Object.keys(wanted).filter((field) => previous[field] !== wanted[field]);
  if (differs.length > 0 || existing.value.shard)
    throw conflict(
      `${outDir} already holds results of another run (${existing.value.shard ? "a shard" : differs.join(", ")} differ); choose another --out`,
      { outDir },
    );
}

/** Every attempt folder of the sources by `<incident>/<attempt>`; one attempt in two sources is a conflict. */
async function collectAttempts(
  sources: readonly Source[],
): Promise<Map<string, AttemptFolder & { source: string }>> {
  const attempts = new Map<string, AttemptFolder & { source: string }>();
  const duplicates: string[] = [];
  for (const source of sources) {
    for (const folder of await listAttemptFolders(source.dir)) {
      const key = `${folder.incidentId}/attempt-${folder.attempt}`;
      const other = attempts.get(key);
      if (other) duplicates.push(`${key} is in ${other.source} and in ${source.dir}`);
      else attempts.set(key, { ...folder, source: source.dir });
    }
  }
  if (duplicates.length > 0)
    throw conflict(`the same attempt is in two results folders:\n  ${duplicates.join("\n  ")}`, {
      duplicates,
    });
  return attempts;
}

/** An attempt folder's attempt.json as read (bytes and parse), undefined when missing. */
async function readRecord(
  dir: string,
): Promise<Exclude<AttemptFile<Attempt>, { state: "missing" }> | undefined> {
  const { attempt } = await readAttempt(dir, { files: ["attempt"] });
  return attempt.state === "missing" ? undefined : attempt;
}

/** Copies (or links) one attempt folder's regular files into a staged folder, then puts it in place. */
async function mergeAttempt(
  folder: AttemptFolder,
  outDir: string,
  files: "link" | "copy",
): Promise<void> {
  const staged = await stageAttemptFolder({
    outDir,
    incidentId: folder.incidentId,
    attempt: folder.attempt,
  });
  for (const name of await readdir(folder.dir)) {
    const from = join(folder.dir, name);
    const info = await lstat(from);
    if (!info.isFile())
      throw conflict(`${from} is not a regular file: results folders hold only files`, {
        path: from,
      });
    const to = join(staged.dir, name);
    if (files === "link") await link(from, to).catch(() => copyFile(from, to));
    else await copyFile(from, to);
  }
  await staged.commit();
}

/** Attempts short of the run's count, per incident present. */
function attemptGaps(keys: Iterable<string>, attemptsPerIncident: number): MergeGap[] {
  const byIncident = new Map<string, Set<number>>();
  for (const key of keys) {
    const [incidentId, attempt] = key.split("/attempt-") as [string, string];
    const set = byIncident.get(incidentId) ?? new Set<number>();
    set.add(Number(attempt));
    byIncident.set(incidentId, set);
  }
  const gaps: MergeGap[] = [];
  for (const [incidentId, attempts] of [...byIncident].sort(([a], [b]) => a.localeCompare(b)))
    for (let attempt = 1; attempt <= attemptsPerIncident; attempt++)
      if (!attempts.has(attempt)) gaps.push({ what: `${incidentId} attempt ${attempt}` });
  return gaps;
}

/**
 * Merges results folders of one run config (the shards of `distdebug run --shard i/n`, or
 * runs on disjoint incidents) into one: their run.json files must agree (config, dataset and
 * harness), no attempt may be in two folders and no shard given twice (each refusal names
 * what conflicts), and an existing `outDir` must be of the same run. Attempt folders are
 * hard-linked (or copied) into a staging folder and renamed into place, so an interrupted
 * merge leaves only whole attempts and resumes where it stopped. Missing shards and
 * incidents with fewer attempts than the config's are returned as gaps. Score the result
 * with `scoreResults`: merging shards gives the same summary.json as the unsharded run.
 *
 * @example
 * ```ts
 * const { gaps } = await mergeResults({ sources: ["results/x.shard-1-of-2", "results/x.shard-2-of-2"], outDir: "results/x" });
 * ```
 */
export async function mergeResults(options: MergeResultsOptions): Promise<MergeResultsResult> {
  const sources = await readSources(options.sources);
  checkAgreement(sources);
  const gaps = shardGaps(sources);
  const run = mergedRun(sources);
  const attempts = await collectAttempts(sources);
  await mkdir(options.outDir, { recursive: true });
  const lock = await acquireFileLock(runLockPath(options.outDir), {
    wait: false,
    code: "RESULTS_CONFLICT",
    what: `the results folder ${options.outDir}`,
  });
  try {
    await checkTarget(options.outDir, run);
    await writeRunInfo(options.outDir, run);
    const incidents = [...new Set([...attempts.values()].map((folder) => folder.incidentId))];
    await removeAttemptLeftovers(options.outDir, incidents);
    let merged = 0;
    let kept = 0;
    for (const folder of attempts.values()) {
      if (options.signal?.aborted)
        throw new DistDebugError({
          code: "ABORTED",
          message: `merge interrupted after ${merged} attempts; run it again to resume`,
        });
      const target = attemptDir(options.outDir, folder.incidentId, folder.attempt);
      const [present, wanted] = await Promise.all([readRecord(target), readRecord(folder.dir)]);
      if (present?.bytes && wanted?.bytes?.equals(present.bytes)) {
        kept += 1;
        options.onEvent?.({
          type: "attempt-keep",
          incidentId: folder.incidentId,
          attempt: folder.attempt,
        });
        continue;
      }
      if (present)
        throw conflict(
          `${target} already holds another record of this attempt than ${folder.dir}; choose another --out`,
          { target },
        );
      if (!wanted) {
        gaps.push({
          what: `${folder.incidentId} attempt ${folder.attempt} (${folder.dir} has no attempt.json)`,
        });
        continue;
      }
      if (wanted.state === "invalid") throw wanted.error;
      await mergeAttempt(folder, options.outDir, options.files ?? "link");
      merged += 1;
      options.onEvent?.({
        type: "attempt-merge",
        incidentId: folder.incidentId,
        attempt: folder.attempt,
        source: folder.source,
      });
    }
    gaps.push(...attemptGaps(attempts.keys(), run.config.run.attempts));
    return { outDir: options.outDir, merged, kept, gaps, run };
  } finally {
    await lock.release();
  }
}
