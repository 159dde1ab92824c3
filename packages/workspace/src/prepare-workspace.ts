import type { Stats } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { defaultCacheDir } from "./cache-dir.js";
import { type GitEngine, openReader } from "./engine.js";
import type { WorkspaceEvent } from "./events.js";
import {
  type BuiltWorkspace,
  type CopiedBase,
  copyBaseWorkspace,
  removeAtomically,
} from "./internal/base-workspace.js";
import { chownTree, type Owner } from "./internal/copy-tree.js";
import { materialize, type Replacement } from "./internal/materialize.js";
import { NEUTRAL_TIME } from "./internal/neutral-times.js";
import { sourceKey } from "./internal/source-repo.js";
import { removeStaleSiblings, tempSibling } from "./internal/temp-files.js";
import { compileNeedles } from "./needles.js";
import { openRepository } from "./open-repository.js";
import type { WorkspaceCopyProof } from "./workspace-copy-proof.js";

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
  /**
   * The user and group every entry of the copy is created as (set on each entry as it is
   * written, no walk afterwards; needs the privilege). The result's `owner` repeats it, so a
   * sandbox can skip handing the copy over (`createSandbox`'s `ownedWorkspace`). The cached base
   * stays the caller's. Default: unchanged.
   */
  owner?: Owner;
  /** Replace an existing `dir`. Default false. */
  replace?: boolean;
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
  /**
   * What the copy was proven to be as it was written (its contents equal the cached base's as
   * built); pass it to `checkLeakage` so one verdict serves every copy of the base. Undefined
   * without a cache.
   */
  copyProof: WorkspaceCopyProof | undefined;
  /**
   * The user and group every entry of `dir` (itself included) was created as: the `owner`
   * option; undefined without it.
   */
  owner: Owner | undefined;
  /** Files written (symlinks included, submodules not). */
  files: number;
  bytes: number;
  /** Every needle replacement: file, 1-based line, needle. */
  replacements: Replacement[];
  /** Submodule paths, left as empty folders. */
  submodules: string[];
  timings: { totalMs: number; buildMs: number; copyMs: number };
}

/**
 * Materializes the tree of `commit` into `dir` as a fresh git repository with exactly one
 * neutral commit (no remotes, tags, other refs, reflogs or source objects), scrubbing
 * `needles` without changing any line. Nothing but the tree shows through: objects are packed
 * by path, files and folders created in path order, and every atime and mtime (each copy of
 * the cached base included) is 2000-01-01. The base workspace is built once per
 * (source, commit, needles) in the cache and copied for each call, in one pass that hashes
 * every file it writes: a copy whose contents differ from the base as built rebuilds the base
 * (`cache-discard`), and the copy's proof (`copyProof`) lets `checkLeakage` reuse one verdict
 * for every copy of the base. Work happens in a temporary
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
  const plan = await planWorkspace(options);
  const temp = tempSibling(plan.dir);
  let made: CopiedBase;
  try {
    made = plan.cacheDir
      ? await copyFromCache(plan, plan.cacheDir, temp)
      : await buildUncached(plan, temp);
    // An empty existing folder is replaced by the rename itself.
    if (options.replace && plan.existing) await removeAtomically(plan.dir);
    await rename(temp, plan.dir);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  const totalMs = performance.now() - started;
  plan.emit({ type: "workspace-prepare-end", dir: plan.dir, durationMs: totalMs });
  const { built } = made;
  return {
    dir: plan.dir,
    sourceCommit: built.sourceCommit,
    commit: built.commit,
    tree: built.tree,
    sourceTree: built.sourceTree,
    baseDir: made.baseDir,
    cacheHit: made.cacheHit,
    copyProof:
      made.baseDir && made.contentDigest
        ? { dir: plan.dir, baseDir: made.baseDir, contentDigest: made.contentDigest }
        : undefined,
    owner: options.owner ? { uid: options.owner.uid, gid: options.owner.gid } : undefined,
    files: built.files,
    bytes: built.bytes,
    replacements: built.replacements,
    submodules: built.submodules,
    timings: { totalMs, buildMs: made.buildMs, copyMs: made.copyMs },
  };
}

/** The checked options of one call, with the cache folders and what is at `dir` now. */
interface WorkspacePlan {
  options: PrepareWorkspaceOptions;
  dir: string;
  emit: (event: WorkspaceEvent) => void;
  needles: string[];
  level: number;
  /** Where clones go (always a cache). */
  sharedCache: string;
  /** Where base workspaces go; undefined with `cacheDir: false`. */
  cacheDir: string | undefined;
  existing: Stats | undefined;
}

/** Checks the options and the target folder; removes stale temporary siblings of `dir`. */
async function planWorkspace(options: PrepareWorkspaceOptions): Promise<WorkspacePlan> {
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
  return { options, dir, emit, needles, level, sharedCache, cacheDir, existing };
}

/**
 * The layout of a cached base workspace, part of its cache key: bump it whenever what
 * `materialize` writes changes, so a base built by an older version is never copied (2: the
 * neutral object order, neutral times and the neutral scrub word).
 */
const BASE_LAYOUT_VERSION = 2;

/** Without a base-workspace cache: materializes straight into `temp`. */
async function buildUncached(plan: WorkspacePlan, temp: string): Promise<CopiedBase> {
  const t0 = performance.now();
  const built = await build(plan, temp);
  if (plan.options.owner) await chownTree(temp, plan.options.owner);
  return {
    built,
    baseDir: undefined,
    cacheHit: false,
    contentDigest: undefined,
    buildMs: performance.now() - t0,
    copyMs: 0,
  };
}

/** Copies the base workspace of (source, commit, needles, level) from the cache into `temp`. */
async function copyFromCache(
  plan: WorkspacePlan,
  cacheDir: string,
  temp: string,
): Promise<CopiedBase> {
  const { options } = plan;
  return copyBaseWorkspace(
    {
      cacheDir,
      identity: {
        v: BASE_LAYOUT_VERSION,
        source: await sourceKey(options.source),
        commit: await resolveCommit(plan),
        needles: plan.needles,
        level: plan.level,
      },
      build: (target) => build(plan, target),
      owner: options.owner,
      // The copy's times are set as it is written: what read the base (scoring, an earlier
      // copy) moved its atimes, and none of that may show.
      time: NEUTRAL_TIME,
      signal: options.signal,
      emit: plan.emit,
    },
    temp,
  );
}

/** The source's git folder (cloned or fetched into the shared cache when remote). */
function openGitDir(plan: WorkspacePlan): Promise<string> {
  const { options } = plan;
  return openRepository({
    source: options.source,
    commit: options.commit,
    cacheDir: plan.sharedCache,
    ...(options.engine ? { engine: options.engine } : {}),
    signal: options.signal,
    onEvent: plan.emit,
  });
}

/** The full id of `commit` (a full id is taken as is, without opening the source). */
async function resolveCommit(plan: WorkspacePlan): Promise<string> {
  const { options } = plan;
  if (/^[0-9a-f]{40}$/i.test(options.commit)) return options.commit.toLowerCase();
  const reader = await openReader(await openGitDir(plan), options.engine);
  try {
    return await reader.resolve(options.commit);
  } catch (error) {
    throw notFound(options, error);
  } finally {
    await reader.close();
  }
}

function notFound(options: PrepareWorkspaceOptions, error: unknown): DistDebugError {
  return new DistDebugError({
    code: "WORKSPACE_ERROR",
    message: `${options.source}: commit ${options.commit} not found (${(error as Error).message})`,
    data: { source: options.source, commit: options.commit },
    cause: error,
  });
}

/** Materializes the source commit into `target` (created here). */
async function build(plan: WorkspacePlan, target: string): Promise<BuiltWorkspace> {
  const { options } = plan;
  const gitdir = await openGitDir(plan);
  const reader = await openReader(gitdir, options.engine);
  try {
    let sourceCommit: string;
    try {
      sourceCommit = await reader.resolve(options.commit);
    } catch (error) {
      throw notFound(options, error);
    }
    await mkdir(target);
    const result = await materialize({
      reader,
      commit: sourceCommit,
      dir: target,
      matcher: compileNeedles(plan.needles),
      compressionLevel: plan.level,
      signal: options.signal,
      onProgress: (filesDone, filesTotal) =>
        plan.emit({ type: "tree-copy", filesDone, filesTotal }),
    });
    return { ...result, sourceCommit };
  } finally {
    await reader.close();
  }
}
