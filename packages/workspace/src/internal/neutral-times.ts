import { type BigIntStats, lstatSync, lutimesSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** 2000-01-01T00:00:00Z: the commit date and the mtime and atime of every workspace entry. */
export const NEUTRAL_TIME = 946684800;

/** One entry below a folder, with its status taken before the entry was listed or read. */
export interface StampedEntry {
  /** Path relative to the root (`""` for the root itself). */
  rel: string;
  stats: BigIntStats;
}

/**
 * Every entry below and including `root` in path order, each `lstat`ed before its folder is
 * listed (listing a folder updates its atime under `relatime`), so the recorded times are
 * those the entries had before this walk touched them.
 */
export function stampedEntries(root: string): StampedEntry[] {
  const out: StampedEntry[] = [];
  const visit = (rel: string) => {
    const path = rel === "" ? root : join(root, rel);
    const stats = lstatSync(path, { bigint: true });
    out.push({ rel, stats });
    if (!stats.isDirectory()) return;
    for (const name of readdirSync(path).sort()) visit(rel === "" ? name : `${rel}/${name}`);
  };
  visit("");
  return out;
}

/** True when an entry's atime and mtime are both exactly {@link NEUTRAL_TIME}. */
export function hasNeutralTimes(stats: BigIntStats): boolean {
  const neutral = BigInt(NEUTRAL_TIME) * 1_000_000_000n;
  return stats.atimeNs === neutral && stats.mtimeNs === neutral;
}

/**
 * Sets the atime and mtime of every entry below and including `root` (folders and symlinks
 * too) to {@link NEUTRAL_TIME}, in path order, after listing everything: what the harness or a
 * previous reader of a copied base read leaves no trace, and no time reflects build order.
 */
export function neutralizeTimes(root: string): void {
  restoreTimes(
    root,
    stampedEntries(root).map((entry) => entry.rel),
    () => [NEUTRAL_TIME, NEUTRAL_TIME],
  );
}

/**
 * Sets the times of the given entries (relative paths, in the given order) to what `times`
 * returns for each, `[atime, mtime]` in seconds.
 */
export function restoreTimes(
  root: string,
  rels: readonly string[],
  times: (rel: string) => [number, number],
): void {
  for (const rel of rels) {
    const [atime, mtime] = times(rel);
    lutimesSync(rel === "" ? root : join(root, rel), atime, mtime);
  }
}
