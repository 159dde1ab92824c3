import { readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { processAlive, tempSiblingPath, withFileLock } from "@distdebug/schema";

const TEMP_TAG = ".distdebug-tmp-";

/** A temporary sibling of `path` (same folder, so a rename onto `path` is atomic). */
export function tempSibling(path: string): string {
  return tempSiblingPath(path, TEMP_TAG);
}

/**
 * Removes temporary siblings of `path` left by processes that died (killed mid-prepare).
 * Siblings of live processes are left alone.
 */
export async function removeStaleSiblings(path: string): Promise<string[]> {
  const prefix = `.${basename(path)}${TEMP_TAG}`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (!Number.isInteger(pid) || processAlive(pid)) continue;
    const stale = join(dirname(path), name);
    await rm(stale, { recursive: true, force: true });
    removed.push(stale);
  }
  return removed;
}

/**
 * Runs `fn` while holding an exclusive lock file (see `acquireFileLock`): a lock left by a
 * dead process on this host is broken; otherwise waits, polling.
 */
export function withLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
): Promise<T> {
  return withFileLock(lockPath, fn, { ...options, code: "WORKSPACE_ERROR" });
}
