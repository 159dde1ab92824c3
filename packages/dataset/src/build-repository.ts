import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError, errorMessage, RepoHistory, tempSiblingPath } from "@distdebug/schema";
import { defaultCacheDir, writeBareRepository } from "@distdebug/workspace";
import { readTree } from "./internal/files.js";
import { replayHistory } from "./internal/replay.js";
import type { DatasetIncident } from "./types.js";

/** Options of {@link buildIncidentRepository}. */
export interface BuildRepositoryOptions {
  /**
   * The cache folder; repositories go to `<cacheDir>/repos/`. Default: workspace's
   * `defaultCacheDir()`.
   */
  cacheDir?: string;
  signal?: AbortSignal;
}

/** A built incident repository. */
export interface BuiltRepository {
  /** The bare git repository (a git dir). */
  gitdir: string;
  /** The revision the agent sees. */
  buggyCommit: string;
  /** The branch that holds the whole history. */
  branch: string;
  /** False when the repository was already in the cache. */
  built: boolean;
}

function failure(entry: DatasetIncident, message: string, cause?: unknown): DistDebugError {
  return new DistDebugError({
    code: "WORKSPACE_ERROR",
    message: `${entry.id}: ${message}`,
    data: { incidentId: entry.id },
    cause,
  });
}

async function isRepository(gitdir: string): Promise<boolean> {
  try {
    return (await stat(join(gitdir, "distdebug-built"))).isFile();
  } catch {
    return false;
  }
}

/**
 * Builds an incident's git repository from its data (`repo/history.json` + `repo/tree/`)
 * into the cache as a bare repository, with fixed authors and dates so every commit id is
 * stable: the buggy commit equals incident.json's `repository.buggyCommit`. Safe when two
 * processes build the same incident at once (each builds in a temporary folder and renames
 * it into place; the loser uses the winner's). A repository already in the cache is reused.
 * Incidents whose repository is remote throw `INVALID_ARGUMENT` (cloning needs network).
 *
 * @example
 * ```ts
 * const dataset = await loadDataset("examples/dataset");
 * const repo = await buildIncidentRepository(dataset.incidents[0]!, { cacheDir: ".cache" });
 * // repo.gitdir holds the history; check out repo.buggyCommit
 * ```
 */
export async function buildIncidentRepository(
  entry: DatasetIncident,
  options: BuildRepositoryOptions = {},
): Promise<BuiltRepository> {
  const source = entry.repository;
  if (source.kind === "remote")
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${entry.id}: the repository is remote (${source.url}); it must be cloned, which needs network`,
      data: { incidentId: entry.id, url: source.url },
    });
  options.signal?.throwIfAborted();
  const history = RepoHistory.parse(
    JSON.parse(await readFile(join(source.dir, "history.json"), "utf8")),
  );
  const replay = replayHistory(history, await readTree(join(source.dir, "tree")), "history.json");
  if (replay.problems.length > 0 || !replay.buggy)
    throw failure(entry, `the repository data is invalid; run distdebug dataset check`);
  const last = replay.commits[replay.commits.length - 1]!;
  const key = createHash("sha256")
    .update(JSON.stringify([history.defaultBranch, replay.commits.map((c) => [c.oid, c.tags])]))
    .digest("hex")
    .slice(0, 16);
  const reposDir = join(options.cacheDir ?? defaultCacheDir(), "repos");
  const target = join(reposDir, `${entry.id}-${key}.git`);
  const result = { gitdir: target, buggyCommit: replay.buggy.oid, branch: history.defaultBranch };
  if (await isRepository(target)) return { ...result, built: false };

  await mkdir(reposDir, { recursive: true });
  const temp = tempSiblingPath(target, ".tmp-");
  try {
    const refs: Record<string, string> = { [`refs/heads/${history.defaultBranch}`]: last.oid };
    for (const commit of replay.commits)
      for (const tag of commit.tags) refs[`refs/tags/${tag.name}`] = tag.oid;
    await writeBareRepository({
      gitdir: temp,
      defaultBranch: history.defaultBranch,
      objects: replay.objects.values(),
      refs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await writeFile(join(temp, "distdebug-built"), `${entry.id}\n`);
    try {
      await rename(temp, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === "ENOTEMPTY" || code === "EEXIST") && (await isRepository(target))) {
        await rm(temp, { recursive: true, force: true });
        return { ...result, built: false };
      }
      throw error;
    }
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (DistDebugError.isInstance(error)) throw error;
    throw failure(
      entry,
      `cannot build the repository in ${reposDir}: ${errorMessage(error)}`,
      error,
    );
  }
  return { ...result, built: true };
}
