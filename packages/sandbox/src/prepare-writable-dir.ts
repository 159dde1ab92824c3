import type { Stats } from "node:fs";
import { chmod, lchown, lstat, readdir, utimes } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError, SandboxPolicy, type SandboxPolicyInput } from "@distdebug/schema";

/** Options of {@link prepareWritableDir}. */
export interface PrepareWritableDirOptions {
  /** The user to hand the folder to. Default: the policy's user, 65534:65534. */
  user?: { uid: number; gid: number };
  /** Or the policy whose user to use. */
  policy?: SandboxPolicyInput;
}

/**
 * Makes a host folder writable for the sandbox user: when this process runs as root, every
 * file and folder below `dir` (symlinks themselves, never their targets) is chowned to the
 * policy's uid:gid (default 65534:65534). When not root, commands run as the caller's own uid
 * and nothing needs doing. `createSandbox` calls it for the workspace and output folders
 * unless `prepareDirs: false` (and, for the workspace, unless its creator states that it made
 * every entry the sandbox user's: `ownedWorkspace`). Returns the number of entries changed.
 *
 * @example
 * ```ts
 * await prepareWritableDir("/tmp/attempt-1/workspace");
 * ```
 */
export async function prepareWritableDir(
  dir: string,
  options: PrepareWritableDirOptions = {},
): Promise<number> {
  if (process.getuid?.() !== 0) return 0;
  const user = options.user ?? SandboxPolicy.parse(options.policy ?? {}).user;
  return changeTree(
    dir,
    async (path, info) => {
      if (info.uid === user.uid && info.gid === user.gid) return false;
      await lchown(path, user.uid, user.gid);
      return true;
    },
    {
      what: `hand the folder to the sandbox user ${user.uid}:${user.gid}`,
      data: { uid: user.uid, gid: user.gid },
    },
  );
}

/**
 * Makes a host folder readable for the sandbox user without changing its owner: adds read
 * permission for others on every file, and read and search permission on every folder below
 * `dir` (symlinks are left alone). `createSandbox` calls it for the task folder, when this
 * process runs as root, unless `prepareDirs: false`. Returns the number of entries changed.
 *
 * @example
 * ```ts
 * await prepareReadableDir("/tmp/attempt-1/task");
 * ```
 */
export async function prepareReadableDir(dir: string): Promise<number> {
  return changeTree(
    dir,
    async (path, info) => {
      if (info.isSymbolicLink()) return false;
      const wanted = info.isDirectory() || (info.mode & 0o111) !== 0 ? 0o005 : 0o004;
      if ((info.mode & wanted) === wanted) return false;
      await chmod(path, (info.mode & 0o7777) | wanted);
      return true;
    },
    { what: "make the folder readable for the sandbox user", data: {} },
  );
}

/**
 * Visits `dir` and every entry below it (never following links), applying `change` to each;
 * returns how many entries `change` changed. Listing a folder moves its atime: each folder's
 * atime and mtime are put back as found, so the walk leaves no trace an agent could read
 * (the workspace's times are one neutral date, THREATS.md section 7). A failure becomes a
 * SANDBOX_ERROR saying what could not be done to the folder.
 */
async function changeTree(
  dir: string,
  change: (path: string, info: Stats) => Promise<boolean>,
  failure: { what: string; data: Record<string, unknown> },
): Promise<number> {
  let changed = 0;
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path);
    if (await change(path, info)) changed += 1;
    if (!info.isDirectory()) return;
    for (const name of await readdir(path)) await visit(join(path, name));
    await utimes(path, info.atimeMs / 1000, info.mtimeMs / 1000);
  };
  try {
    await visit(dir);
  } catch (error) {
    throw new DistDebugError({
      code: "SANDBOX_ERROR",
      message: `${dir}: cannot ${failure.what} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      data: { path: dir, ...failure.data },
      cause: error,
    });
  }
  return changed;
}
