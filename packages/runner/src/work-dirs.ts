import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { unmountLeftoverDiskBudgets } from "@distdebug/sandbox";
import { processAlive } from "@distdebug/schema";

/**
 * Start of an attempt's working folder name under the cache's `tmp/` (pid: whose it is). It
 * takes the attempt's opaque task id: the folder's path is visible inside the sandbox.
 */
export function workDirPrefix(taskId: string, attempt: number): string {
  return `${taskId}-a${attempt}-p${process.pid}-`;
}

/**
 * Start of a `dataset verify` scratch folder's name under the cache's `tmp/` (pid: whose it
 * is), so a later run or verify removes it, and unmounts its tmpfs, once that process died.
 */
export function verifyScratchPrefix(): string {
  return `verify-p${process.pid}-`;
}

/** The pid in a working or scratch folder's name (see {@link workDirPrefix}, {@link verifyScratchPrefix}), or undefined. */
function workDirOwner(name: string): number | undefined {
  const match = /(?:^verify|-a\d+)-p(\d+)-[^-]*$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Removes the working and scratch folders of dead processes from `tempDir` (those of live
 * processes stay), unmounting their disk budgets (tmpfs mounts) first.
 *
 * @example
 * ```ts
 * await removeDeadWorkDirs(join(cacheDir, "tmp"));
 * ```
 */
export async function removeDeadWorkDirs(tempDir: string): Promise<void> {
  for (const name of await readdir(tempDir).catch(() => [] as string[])) {
    const owner = workDirOwner(name);
    if (owner === undefined || processAlive(owner)) continue;
    // A dead run's disk budgets (tmpfs mounts) are still mounted there: unmount them first.
    await unmountLeftoverDiskBudgets(join(tempDir, name));
    await rm(join(tempDir, name), { recursive: true, force: true });
  }
}
