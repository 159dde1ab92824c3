import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DistDebugError, writeFileAtomic } from "@distdebug/schema";
import type { WorkspaceEvent } from "../events.js";
import { copyTreeSync, digestTreeSync, type Owner } from "./copy-tree.js";
import type { MaterializeResult } from "./materialize.js";
import { removeStaleSiblings, tempSibling, withLock } from "./temp-files.js";

/** What building a workspace made, with the full id of the source commit. */
export type BuiltWorkspace = MaterializeResult & { sourceCommit: string };

/** `complete.json` of a cached base workspace: written last, so its presence means complete. */
interface BaseMarker {
  format: typeof BASE_FORMAT;
  /** The tree's entries with every file's contents hashed (see `copyTreeSync`). */
  contentDigest: string;
  entries: number;
  build: Omit<MaterializeResult, "bytes"> & { bytes: number; sourceCommit: string };
}

const BASE_FORMAT = "distdebug.workspace-base/2";

/** How a base workspace is found or built in the cache, and copied out. */
export interface BaseWorkspaceOptions {
  /** The cache folder (base workspaces live in its `workspaces/`). */
  cacheDir: string;
  /** What identifies the base: source, resolved commit, needles, compression level. */
  identity: Record<string, unknown>;
  /** Builds the base workspace into the given (not yet existing) folder. */
  build: (target: string) => Promise<BuiltWorkspace>;
  owner?: Owner | undefined;
  /** The atime and mtime of every entry of the copy, in seconds. */
  time: number;
  signal?: AbortSignal | undefined;
  emit: (event: WorkspaceEvent) => void;
}

/** What copying a base workspace out of the cache did. */
export interface CopiedBase {
  built: BuiltWorkspace;
  /** The pristine base in the cache; undefined when built without one. */
  baseDir: string | undefined;
  cacheHit: boolean;
  /**
   * The digest of the copy's manifest and contents, computed from the bytes written: equal to
   * the base's as recorded when it was built. Undefined when built without a cache.
   */
  contentDigest: string | undefined;
  buildMs: number;
  copyMs: number;
}

/**
 * Copies the cached base workspace to `target`, building it first when missing or damaged.
 * A copy whose contents (as written) do not match the digest recorded when the base was built
 * discards the entry and rebuilds it once; a second mismatch is `CACHE_CORRUPT`.
 */
export async function copyBaseWorkspace(
  options: BaseWorkspaceOptions,
  target: string,
): Promise<CopiedBase> {
  const key = baseKey(options.identity);
  const entry = join(options.cacheDir, "workspaces", key);
  const baseDir = join(entry, "tree");
  let buildMs = 0;
  let copyMs = 0;
  for (let round = 0; ; round++) {
    const found = await findOrBuildBase(options, entry, key);
    buildMs += found.buildMs;
    const t1 = performance.now();
    const copied = copyTreeSync(baseDir, target, options);
    copyMs += performance.now() - t1;
    if (copied.contentDigest === found.marker.contentDigest)
      return {
        built: found.marker.build,
        baseDir,
        cacheHit: found.cacheHit,
        contentDigest: copied.contentDigest,
        buildMs,
        copyMs,
      };
    await discardMismatch(options, target, entry, key, round);
  }
}

function baseKey(identity: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify(identity)).digest("hex").slice(0, 32);
}

/** The entry's marker when complete; otherwise builds the entry under its lock. */
async function findOrBuildBase(
  options: BaseWorkspaceOptions,
  entry: string,
  key: string,
): Promise<{ marker: BaseMarker; cacheHit: boolean; buildMs: number }> {
  const marker = await readMarker(join(entry, "complete.json"));
  if (marker) {
    options.emit({ type: "cache-hit", key, baseDir: join(entry, "tree") });
    return { marker, cacheHit: true, buildMs: 0 };
  }
  await mkdir(dirname(entry), { recursive: true });
  const t0 = performance.now();
  const built = await withLock(`${entry}.lock`, () => buildBaseLocked(options, entry, key), {
    signal: options.signal,
  });
  return { marker: built, cacheHit: false, buildMs: performance.now() - t0 };
}

/** Under the entry's lock: another process may have built it meanwhile; else builds it. */
async function buildBaseLocked(
  options: BaseWorkspaceOptions,
  entry: string,
  key: string,
): Promise<BaseMarker> {
  const again = await readMarker(join(entry, "complete.json"));
  if (again) return again;
  if (await exists(entry)) {
    options.emit({
      type: "cache-discard",
      key,
      baseDir: entry,
      reason: "no valid complete.json (a partial or damaged entry)",
    });
    await removeAtomically(entry);
  } else options.emit({ type: "cache-miss", key });
  await removeStaleSiblings(entry);
  return buildBase(options, entry);
}

/** Builds the base into a staging sibling, writes its marker, and renames it into place. */
async function buildBase(options: BaseWorkspaceOptions, entry: string): Promise<BaseMarker> {
  const staging = tempSibling(entry);
  await mkdir(staging);
  try {
    const result = await options.build(join(staging, "tree"));
    const walk = digestTreeSync(join(staging, "tree"));
    const fresh: BaseMarker = {
      format: BASE_FORMAT,
      contentDigest: walk.contentDigest,
      entries: walk.entries,
      build: result,
    };
    await writeFileAtomic(join(staging, "complete.json"), `${JSON.stringify(fresh, null, 2)}\n`);
    await rename(staging, entry);
    return fresh;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** A copy that differs from the digest: drops it and the entry (or gives up after a rebuild). */
async function discardMismatch(
  options: BaseWorkspaceOptions,
  target: string,
  entry: string,
  key: string,
  round: number,
): Promise<void> {
  await rm(target, { recursive: true, force: true });
  options.emit({
    type: "cache-discard",
    key,
    baseDir: entry,
    reason: "the files differ from the digest of their contents in complete.json",
  });
  if (round >= 1)
    throw new DistDebugError({
      code: "CACHE_CORRUPT",
      message: `the base workspace ${entry} does not match its digest even after a rebuild; remove ${options.cacheDir} and retry`,
      data: { entry },
    });
  await removeAtomically(entry);
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

async function readMarker(path: string): Promise<BaseMarker | undefined> {
  try {
    const marker = JSON.parse(await readFile(path, "utf8")) as BaseMarker;
    if (marker.format !== BASE_FORMAT || typeof marker.contentDigest !== "string") return undefined;
    return marker;
  } catch {
    return undefined;
  }
}

/** Renames `path` aside and removes it: no reader ever sees a half-removed folder. */
export async function removeAtomically(path: string): Promise<void> {
  const trash = tempSibling(path);
  try {
    await rename(path, trash);
  } catch {
    return;
  }
  await rm(trash, { recursive: true, force: true });
}
