import { link, open, readdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DistDebugError, type DistDebugErrorCode } from "./errors.js";
import { tempSiblingPath } from "./files.js";

/** True when a process with this id runs on this machine (or exists and we may not signal it). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A lock file held by this process; {@link FileLock.release} removes it. */
export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Options of {@link acquireFileLock}. */
export interface AcquireFileLockOptions {
  /** Wait (polling) while another live process holds the lock; default true. */
  wait?: boolean;
  /** Give up waiting after this long; default 30 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
  /** Error code when the lock is held (no wait) or the wait times out; default `LOCK_HELD`. */
  code?: DistDebugErrorCode;
  /** Says what the lock protects, for the error message (e.g. "the results folder x"). */
  what?: string;
}

/**
 * A lock file's content; undefined when it does not exist (any more); empty when it cannot
 * be read (then it counts as a lock of an unknown process).
 */
async function readLock(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "";
  }
}

/** `<pid>@<host>` parsed, or undefined for a file this code did not write. */
function ownerOf(raw: string): { pid: number; host: string } | undefined {
  const at = raw.lastIndexOf("@");
  if (at <= 0) return undefined;
  return { pid: Number(raw.slice(0, at)), host: raw.slice(at + 1) };
}

/**
 * Removes the lock `path` if it still holds `staleRaw`: `removed` (or changed meanwhile),
 * `busy` (another process is breaking it) or `stuck` (it cannot be removed). Breakers take `<path>.break` first,
 * so two processes that both saw the same stale lock cannot remove the fresh lock one of
 * them took meanwhile. `draft` is a file holding `me` (this process's id), placed as the breaker.
 */
async function breakStale(
  path: string,
  staleRaw: string,
  draft: string,
  me: string,
): Promise<"removed" | "busy" | "stuck"> {
  const breaker = `${path}.break`;
  try {
    await placeLock(draft, breaker, me);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another process is breaking it (a breaker lives microseconds; an old one was killed).
    const info = await stat(breaker).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 10_000) await unlink(breaker).catch(() => {});
    return "busy";
  }
  try {
    if ((await readLock(path)) !== staleRaw) return "removed"; // changed meanwhile: look again
    return await unlink(path).then(
      () => "removed" as const,
      () => "stuck" as const,
    );
  } finally {
    await unlink(breaker).catch(() => {});
  }
}

/** Removes lock drafts (`.<name>.<pid>-<hex>`) that processes killed mid-take left next to `path`. */
async function removeDeadDrafts(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (Number.isInteger(pid) && !processAlive(pid))
      await unlink(join(dirname(path), name)).catch(() => {});
  }
}

/** Error codes of file systems without hard links (some FUSE, SMB and 9p mounts). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

/**
 * Puts the lock file in place atomically: a hard link of the whole draft, or, where the file
 * system has no hard links, an exclusive create then write (a kill between the two leaves an
 * empty lock, broken once it is a minute old). Throws `EEXIST` when the lock is taken.
 */
async function placeLock(draft: string, path: string, content: string): Promise<void> {
  try {
    await link(draft, path);
    return;
  } catch (error) {
    if (!NO_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
  }
  const handle = await open(path, "wx");
  try {
    await handle.writeFile(`${content}\n`);
  } finally {
    await handle.close();
  }
}

/**
 * Takes an exclusive lock file holding `<pid>@<host>`. The file is written whole under a
 * temporary name and hard-linked into place, so a lock is never seen empty, even when its
 * taker is killed mid-way. A lock left by a dead process on this host is broken; a lock
 * held by a live process is waited for (or refused with `wait: false`).
 *
 * @example
 * ```ts
 * const lock = await acquireFileLock("results/x/.run.lock", { wait: false, what: "results/x" });
 * try { ... } finally { await lock.release(); }
 * ```
 */
export async function acquireFileLock(
  path: string,
  options: AcquireFileLockOptions = {},
): Promise<FileLock> {
  const me = `${process.pid}@${hostname()}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  const code = options.code ?? "LOCK_HELD";
  const what = options.what ?? path;
  const temp = tempSiblingPath(path, ".");
  await removeDeadDrafts(path);
  await writeFile(temp, `${me}\n`);
  try {
    for (;;) {
      try {
        await placeLock(temp, path, me);
        return {
          path,
          release: async () => {
            if ((await readLock(path)) === me) await unlink(path).catch(() => {});
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const raw = await readLock(path);
      if (raw === undefined) continue; // released just now: try again
      const owner = ownerOf(raw);
      const stale =
        owner === undefined
          ? // Not written by this code (or torn by hand): stale once it is a minute old.
            Date.now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? 0) > 60_000
          : owner.host === hostname() && !processAlive(owner.pid);
      if (stale) {
        const broken = await breakStale(path, raw, temp, me);
        if (broken === "removed") continue;
        if (broken === "busy") {
          await sleep(10 + Math.random() * 20);
          continue;
        }
        // "stuck": it cannot be removed (not a file); it is reported like a held lock.
      }
      const holder = owner ? `process ${owner.pid} on ${owner.host}` : "an unknown process";
      if (options.wait === false)
        throw new DistDebugError({
          code,
          message: `${what} is in use by ${holder} (lock ${path}); wait for it to end, or remove the lock if no distdebug process is running`,
          data: { lockPath: path, owner: raw },
        });
      if (options.signal?.aborted)
        throw new DistDebugError({ code: "ABORTED", message: `aborted while waiting for ${path}` });
      if (Date.now() > deadline)
        throw new DistDebugError({
          code,
          message: `timed out waiting for ${what} (lock ${path}, held by ${holder}); remove the lock if no distdebug process is running`,
          data: { lockPath: path, owner: raw },
        });
      await sleep(50 + Math.random() * 100);
    }
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** Runs `fn` holding the lock file `path` (see {@link acquireFileLock}). */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: AcquireFileLockOptions = {},
): Promise<T> {
  const lock = await acquireFileLock(path, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
