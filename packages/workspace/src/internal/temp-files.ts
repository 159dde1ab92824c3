import { randomBytes } from "node:crypto";
import { open, readdir, readFile, rm, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DistDebugError } from "@distdebug/schema";

/** True when a process with this id runs on this machine (or we may not signal it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const TEMP_TAG = ".distdebug-tmp-";

/** A temporary sibling of `path` (same folder, so a rename onto `path` is atomic). */
export function tempSibling(path: string): string {
  return join(
    dirname(path),
    `.${basename(path)}${TEMP_TAG}${process.pid}-${randomBytes(4).toString("hex")}`,
  );
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
 * Runs `fn` while holding an exclusive lock file (created with O_EXCL, holding the pid).
 * A lock left by a dead process on this host is broken; otherwise waits, polling.
 */
export async function withLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  const me = `${process.pid}@${hostname()}`;
  for (;;) {
    try {
      const handle = await open(lockPath, "wx");
      await handle.writeFile(me);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = await readFile(lockPath, "utf8").catch(() => "");
      const [pid, host] = owner.split("@");
      if (owner !== "" && host === hostname() && !processAlive(Number(pid))) {
        await unlink(lockPath).catch(() => {});
        continue;
      }
      if (options.signal?.aborted)
        throw new DistDebugError({
          code: "ABORTED",
          message: `aborted while waiting for ${lockPath}`,
        });
      if (Date.now() > deadline)
        throw new DistDebugError({
          code: "WORKSPACE_ERROR",
          message: `timed out waiting for the lock ${lockPath} (held by ${owner || "an unknown process"}); remove it if no distdebug process is running`,
          data: { lockPath },
        });
      await sleep(50 + Math.random() * 100);
    }
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => {});
  }
}
