import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { DistDebugError, writeFileAtomic } from "@distdebug/schema";
import { defaultCacheDir } from "./cache-dir.js";
import type { GitEngine } from "./engine.js";
import { openReader } from "./engine.js";
import type { WorkspaceEvent } from "./events.js";
import { chownTree, copyTree, digestTreeSync, type Owner } from "./internal/copy-tree.js";
import { type MaterializeResult, materialize, type Replacement } from "./internal/materialize.js";
import { sourceKey } from "./internal/source-repo.js";
import { removeStaleSiblings, tempSibling, withLock } from "./internal/temp-files.js";
import { compileNeedles } from "./needles.js";
import { openRepository } from "./open-repository.js";

export type { Owner, Replacement };

/** Options of {@link prepareWorkspace}. */
export interface PrepareWorkspaceOptions {
  /** An http(s) URL (cloned once into the repository cache) or a local repository path (bare or not). */
  source: string;
  /** The buggy revision: a commit id (full or abbreviated), branch or tag. */
  commit: string;
  /** The folder to create. It must not exist (or be empty) unless `replace` is set. */
  dir: string;
  /** Strings to scrub from file contents (issue keys, the fix commit id). Default none. */
  needles?: readonly string[];
  /**
   * Cache folder for cloned repositories (`repos/`) and base workspaces (`workspaces/`).
   * Default {@link defaultCacheDir}. `false` builds straight into `dir` with no base-workspace cache.
   */
  cacheDir?: string | false;
  /** How the source is read. Default `auto` (the `git` binary when present). */
  engine?: GitEngine;
  /** chown the prepared copy to this user and group (needs the privilege). Default: unchanged. */
  owner?: Owner;
  /** Replace an existing `dir`. Default false. */
  replace?: boolean;
  /**
   * How a cached base workspace is copied: `auto` (default) runs GNU `cp -a` where present,
   * `node` copies with Node's fs (copy-on-write where the file system allows).
   */
  copyMethod?: "auto" | "node";
  /** zlib level of the workspace pack, 0-9. Default 1 (as git's loose objects). */
  compressionLevel?: number;
  signal?: AbortSignal;
  onEvent?: (event: WorkspaceEvent) => void;
}

/** What {@link prepareWorkspace} made. */
export interface PrepareWorkspaceResult {
  /** The prepared workspace (absolute). */
  dir: string;
  /** The full id of the source commit. */
  sourceCommit: string;
  /** The id of the one neutral commit in the workspace. */
  commit: string;
  /** Its tree (differs from `sourceTree` when needles were scrubbed). */
  tree: string;
  sourceTree: string;
  /** The pristine base workspace in the cache (never handed to agents); undefined without a cache. */
  baseDir: string | undefined;
  /** True when the base workspace came from the cache. */
  cacheHit: boolean;
  /** Files written (symlinks included, submodules not). */
  files: number;
  bytes: number;
  /** Every needle replacement: file, 1-based line, needle. */
  replacements: Replacement[];
  /** Submodule paths, left as empty folders. */
  submodules: string[];
  timings: { totalMs: number; buildMs: number; copyMs: number };
}

interface BaseMarker {
  format: "distdebug.workspace-base/1";
  digest: string;
  entries: number;
  build: Omit<MaterializeResult, "bytes"> & { bytes: number; sourceCommit: string };
}

const BASE_FORMAT = "distdebug.workspace-base/1";

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

async function readMarker(path: string): Promise<BaseMarker | undefined> {
  try {
    const marker = JSON.parse(await readFile(path, "utf8")) as BaseMarker;
    if (marker.format !== BASE_FORMAT || typeof marker.digest !== "string") return undefined;
    return marker;
  } catch {
    return undefined;
  }
}

async function removeAtomically(path: string): Promise<void> {
  const trash = tempSibling(path);
  try {
    await rename(path, trash);
  } catch {
    return;
  }
  await rm(trash, { recursive: true, force: true });
}

/**
 * Materializes the tree of `commit` into `dir` as a fresh git repository with exactly one
 * neutral commit (no remotes, tags, other refs, reflogs or source objects), scrubbing
 * `needles` without changing any line. The base workspace is built once per
 * (source, commit, needles) in the cache and copied for each call. Work happens in a temporary
 * sibling renamed onto `dir` at the end: an interrupted call leaves nothing at `dir`.
 *
 * @example
 * ```ts
 * const result = await prepareWorkspace({
 *   source: "https://github.com/apache/zookeeper.git",
 *   commit: "b4f9c1d",
 *   dir: "/tmp/attempt-1/repo",
 *   needles: ["ZOOKEEPER-2845", fixCommit],
 * });
 * console.log(result.replacements, result.cacheHit);
 * ```
 */
export async function prepareWorkspace(
  options: PrepareWorkspaceOptions,
): Promise<PrepareWorkspaceResult> {
  const started = performance.now();
  const dir = resolve(options.dir);
  const emit = options.onEvent ?? (() => {});
  const needles = [...new Set(options.needles ?? [])].sort();
  const level = options.compressionLevel ?? 1;
  if (!Number.isInteger(level) || level < 0 || level > 9)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `compressionLevel: expected 0-9, found ${level}`,
    });
  const sharedCache = resolve(
    options.cacheDir === false || options.cacheDir === undefined
      ? defaultCacheDir({ onEvent: emit })
      : options.cacheDir,
  );
  // with `cacheDir: false` clones still go to the shared cache, base workspaces nowhere
  const cacheDir = options.cacheDir === false ? undefined : sharedCache;

  await mkdir(dirname(dir), { recursive: true });
  for (const path of await removeStaleSiblings(dir)) emit({ type: "leftover-remove", path });
  const existing = await stat(dir).catch(() => undefined);
  if (existing && !options.replace) {
    if (!existing.isDirectory() || (await readdir(dir)).length > 0)
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `${dir} already exists; remove it or pass replace: true (--replace)`,
        data: { dir },
      });
  }

  const openGitDir = () =>
    openRepository({
      source: options.source,
      commit: options.commit,
      cacheDir: sharedCache,
      ...(options.engine ? { engine: options.engine } : {}),
      signal: options.signal,
      onEvent: emit,
    });
  const resolveCommit = async (): Promise<string> => {
    if (/^[0-9a-f]{40}$/i.test(options.commit)) return options.commit.toLowerCase();
    const reader = await openReader(await openGitDir(), options.engine);
    try {
      return await reader.resolve(options.commit);
    } catch (error) {
      throw notFound(error);
    } finally {
      await reader.close();
    }
  };
  const notFound = (error: unknown) =>
    new DistDebugError({
      code: "WORKSPACE_ERROR",
      message: `${options.source}: commit ${options.commit} not found (${(error as Error).message})`,
      data: { source: options.source, commit: options.commit },
      cause: error,
    });

  const build = async (target: string): Promise<MaterializeResult & { sourceCommit: string }> => {
    const gitdir = await openGitDir();
    const reader = await openReader(gitdir, options.engine);
    try {
      let sourceCommit: string;
      try {
        sourceCommit = await reader.resolve(options.commit);
      } catch (error) {
        throw notFound(error);
      }
      await mkdir(target);
      const result = await materialize({
        reader,
        sourceGitDir: gitdir,
        commit: sourceCommit,
        dir: target,
        matcher: compileNeedles(needles),
        compressionLevel: level,
        signal: options.signal,
        onProgress: (filesDone, filesTotal) => emit({ type: "tree-copy", filesDone, filesTotal }),
      });
      return { ...result, sourceCommit };
    } finally {
      await reader.close();
    }
  };

  let buildMs = 0;
  let copyMs = 0;
  let baseDir: string | undefined;
  let cacheHit = false;
  let built: MaterializeResult & { sourceCommit: string };
  const temp = tempSibling(dir);
  try {
    if (!cacheDir) {
      const t0 = performance.now();
      built = await build(temp);
      if (options.owner) await chownTree(temp, options.owner);
      buildMs = performance.now() - t0;
    } else {
      const key = createHash("sha256")
        .update(
          JSON.stringify({
            v: 1,
            source: await sourceKey(options.source),
            commit: await resolveCommit(),
            needles,
            level,
          }),
        )
        .digest("hex")
        .slice(0, 32);
      const entry = join(cacheDir, "workspaces", key);
      const markerPath = join(entry, "complete.json");
      baseDir = join(entry, "tree");
      let marker: BaseMarker | undefined;
      for (let round = 0; ; round++) {
        marker = await readMarker(markerPath);
        cacheHit = marker !== undefined;
        if (!marker) {
          await mkdir(dirname(entry), { recursive: true });
          const t0 = performance.now();
          marker = await withLock(
            `${entry}.lock`,
            async () => {
              const again = await readMarker(markerPath);
              if (again) return again;
              if (await exists(entry)) {
                emit({
                  type: "cache-discard",
                  key,
                  baseDir: entry,
                  reason: "no valid complete.json (a partial or damaged entry)",
                });
                await removeAtomically(entry);
              } else emit({ type: "cache-miss", key });
              await removeStaleSiblings(entry);
              const staging = tempSibling(entry);
              await mkdir(staging);
              try {
                const result = await build(join(staging, "tree"));
                const walk = digestTreeSync(join(staging, "tree"));
                const fresh: BaseMarker = {
                  format: BASE_FORMAT,
                  digest: walk.digest,
                  entries: walk.entries,
                  build: result,
                };
                await writeFileAtomic(
                  join(staging, "complete.json"),
                  `${JSON.stringify(fresh, null, 2)}\n`,
                );
                await rename(staging, entry);
                return fresh;
              } catch (error) {
                await rm(staging, { recursive: true, force: true });
                throw error;
              }
            },
            { signal: options.signal },
          );
          buildMs += performance.now() - t0;
        } else emit({ type: "cache-hit", key, baseDir });
        const t1 = performance.now();
        const copied = await copyTree(baseDir, temp, {
          owner: options.owner,
          signal: options.signal,
          ...(options.copyMethod ? { method: options.copyMethod } : {}),
        });
        copyMs += performance.now() - t1;
        if (copied.digest === marker.digest) break;
        await rm(temp, { recursive: true, force: true });
        emit({
          type: "cache-discard",
          key,
          baseDir: entry,
          reason: "the files differ from the digest in complete.json",
        });
        if (round >= 1)
          throw new DistDebugError({
            code: "CACHE_CORRUPT",
            message: `the base workspace ${entry} does not match its digest even after a rebuild; remove ${cacheDir} and retry`,
            data: { entry },
          });
        await removeAtomically(entry);
      }
      built = marker.build;
    }
    // An empty existing folder is replaced by the rename itself.
    if (options.replace && existing) await removeAtomically(dir);
    await rename(temp, dir);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  const totalMs = performance.now() - started;
  emit({ type: "workspace-prepare-end", dir, durationMs: totalMs });
  return {
    dir,
    sourceCommit: built.sourceCommit,
    commit: built.commit,
    tree: built.tree,
    sourceTree: built.sourceTree,
    baseDir,
    cacheHit,
    files: built.files,
    bytes: built.bytes,
    replacements: built.replacements,
    submodules: built.submodules,
    timings: { totalMs, buildMs, copyMs },
  };
}
