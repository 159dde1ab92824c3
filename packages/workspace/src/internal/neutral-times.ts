import type { BigIntStats } from "node:fs";
import { lstat, lutimes, readdir } from "node:fs/promises";
import { join } from "node:path";

/** 2000-01-01T00:00:00Z: the commit date and the mtime and atime of every workspace entry. */
export const NEUTRAL_TIME = 946684800;

/** Calls in flight at once: the walk and the stamping run in the thread pool, off the event loop. */
const CONCURRENCY = 64;

/** One entry below a folder, with its status taken before the entry was listed or read. */
export interface StampedEntry {
  /** Path relative to the root (`""` for the root itself). */
  rel: string;
  stats: BigIntStats;
}

/** Runs `fn` over `items` in order, {@link CONCURRENCY} at a time; results in item order. */
async function inChunks<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let at = 0; at < items.length; at += CONCURRENCY)
    out.push(...(await Promise.all(items.slice(at, at + CONCURRENCY).map(fn))));
  return out;
}

/**
 * Every entry below and including `root` in path order, each `lstat`ed before its folder is
 * listed (listing a folder updates its atime under `relatime`), so the recorded times are
 * those the entries had before this walk touched them. Walks level by level.
 */
export async function stampedEntries(root: string): Promise<StampedEntry[]> {
  const out: StampedEntry[] = [];
  const path = (rel: string) => (rel === "" ? root : join(root, rel));
  let level = [""];
  while (level.length > 0) {
    const stamped = await inChunks(level, async (rel) => ({
      rel,
      stats: await lstat(path(rel), { bigint: true }),
    }));
    out.push(...stamped);
    const folders = stamped.filter((entry) => entry.stats.isDirectory()).map((entry) => entry.rel);
    const listed = await inChunks(folders, async (rel) =>
      (await readdir(path(rel))).map((name) => (rel === "" ? name : `${rel}/${name}`)),
    );
    level = listed.flat();
  }
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** True when an entry's atime and mtime are both exactly {@link NEUTRAL_TIME}. */
export function hasNeutralTimes(stats: BigIntStats): boolean {
  const neutral = BigInt(NEUTRAL_TIME) * 1_000_000_000n;
  return stats.atimeNs === neutral && stats.mtimeNs === neutral;
}

/**
 * Sets the atime and mtime of every entry below and including `root` (folders and symlinks
 * too) to {@link NEUTRAL_TIME}, after listing everything (files and links already at it are
 * left alone): what the harness or a previous reader of a copied base read leaves no trace, and no
 * time reflects build order.
 */
export async function neutralizeTimes(root: string): Promise<void> {
  const entries = await stampedEntries(root);
  await restoreTimes(
    root,
    // Folders always: listing them for this walk moved their atimes.
    entries
      .filter((entry) => entry.stats.isDirectory() || !hasNeutralTimes(entry.stats))
      .map((entry) => entry.rel),
    () => [NEUTRAL_TIME, NEUTRAL_TIME],
  );
}

/**
 * Sets the times of the given entries (relative paths, in path order, a chunk at a time) to
 * what `times` returns for each, `[atime, mtime]` in seconds.
 */
export async function restoreTimes(
  root: string,
  rels: readonly string[],
  times: (rel: string) => [number, number],
): Promise<void> {
  await inChunks(rels, (rel) => {
    const [atime, mtime] = times(rel);
    return lutimes(rel === "" ? root : join(root, rel), atime, mtime);
  });
}
