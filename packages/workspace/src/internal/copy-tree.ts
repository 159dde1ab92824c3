import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { constants, type Dirent, lstatSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import {
  chmod,
  copyFile,
  lchown,
  lstat,
  lutimes,
  mkdir,
  readdir,
  readlink,
  symlink,
  utimes,
} from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError } from "@distdebug/schema";

/** Who should own a copied tree (applied with lchown; needs the privilege to do so). */
export interface Owner {
  uid: number;
  gid: number;
}

export interface WalkResult {
  /** SHA-256 over every entry's path, kind, mode, size and link target. */
  digest: string;
  entries: number;
  bytes: number;
}

interface Job {
  rel: string;
  stats: Stats;
}

const WORKERS = 24;

function manifestLine(rel: string, stats: Stats, link: string | undefined): string {
  const kind = stats.isDirectory()
    ? "d"
    : stats.isSymbolicLink()
      ? "l"
      : stats.isFile()
        ? "f"
        : "o";
  const size = stats.isDirectory() ? 0 : stats.size;
  return `${kind} ${(stats.mode & 0o7777).toString(8)} ${size} ${JSON.stringify(rel)} ${link ?? ""}\n`;
}

/**
 * Walks `source` (and copies it to `target` when given: files with copy-on-write where the file
 * system allows, modes and mtimes kept, symlinks as symlinks, no hard links), computing the
 * manifest digest of the source on the way. Work runs on a pool of concurrent operations.
 */
export async function walkTree(
  source: string,
  options: { target?: string; owner?: Owner | undefined; signal?: AbortSignal | undefined } = {},
): Promise<WalkResult> {
  const { target, owner } = options;
  const lines: string[] = [];
  let bytes = 0;
  const rootStats = await lstat(source);
  if (target !== undefined) {
    await mkdir(target);
    await chmod(target, rootStats.mode & 0o7777);
  }
  const queue: Job[] = [];
  const dirsToStamp: { rel: string; stats: Stats }[] = [];
  let active = 0;
  let failure: unknown;

  const handle = async (job: Job): Promise<void> => {
    const { rel, stats } = job;
    const from = join(source, rel);
    const to = target === undefined ? undefined : join(target, rel);
    if (stats.isDirectory()) {
      if (rel !== "") {
        lines.push(manifestLine(rel, stats, undefined));
        if (to !== undefined) {
          await mkdir(to);
          await chmod(to, stats.mode & 0o7777);
        }
      }
      if (to !== undefined) dirsToStamp.push({ rel, stats });
      const children: Dirent[] = await readdir(from, { withFileTypes: true });
      const statted = await Promise.all(children.map((child) => lstat(join(from, child.name))));
      children.forEach((child, index) => {
        const childStats = statted[index];
        if (childStats)
          queue.push({ rel: rel === "" ? child.name : `${rel}/${child.name}`, stats: childStats });
      });
    } else if (stats.isSymbolicLink()) {
      const link = await readlink(from);
      lines.push(manifestLine(rel, stats, link));
      if (to !== undefined) {
        await symlink(link, to);
        await lutimes(to, stats.atime, stats.mtime);
      }
    } else {
      bytes += stats.size;
      lines.push(manifestLine(rel, stats, undefined));
      if (to !== undefined) {
        await copyFile(from, to, constants.COPYFILE_FICLONE);
        await utimes(to, stats.atime, stats.mtime);
      }
    }
    if (to !== undefined && owner) await lchown(to, owner.uid, owner.gid);
  };

  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (failure !== undefined) return;
      if (options.signal?.aborted) {
        failure = new DistDebugError({ code: "ABORTED", message: "the tree copy was aborted" });
        reject(failure);
        return;
      }
      while (active < WORKERS && queue.length > 0) {
        const job = queue.pop() as Job;
        active++;
        handle(job).then(
          () => {
            active--;
            if (queue.length === 0 && active === 0) resolve();
            else pump();
          },
          (error: unknown) => {
            failure = error;
            reject(error);
          },
        );
      }
    };
    queue.push({ rel: "", stats: rootStats });
    pump();
  });
  // Directory mtimes last: writing into a directory changes its mtime.
  if (target !== undefined) {
    await Promise.all(
      dirsToStamp.map((dir) => utimes(join(target, dir.rel), dir.stats.atime, dir.stats.mtime)),
    );
  }
  lines.sort();
  const hash = createHash("sha256");
  for (const line of lines) hash.update(line);
  return { digest: hash.digest("hex"), entries: lines.length, bytes };
}

/** lchowns every entry below and including `root`. */
export async function chownTree(root: string, owner: Owner): Promise<void> {
  await lchown(root, owner.uid, owner.gid);
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  await Promise.all(
    entries.map((entry) => lchown(join(entry.parentPath, entry.name), owner.uid, owner.gid)),
  );
}

let cpAvailable: Promise<boolean> | undefined;

function hasCp(): Promise<boolean> {
  cpAvailable ??= new Promise((resolve) => {
    if (process.platform !== "linux") return resolve(false);
    execFile("cp", ["--version"], (error, stdout) => resolve(!error && stdout.includes("GNU")));
  });
  return cpAvailable;
}

function runCp(source: string, target: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      "cp",
      ["-a", "--no-target-directory", "--", source, target],
      signal ? { signal } : {},
      (error, _stdout, stderr) => {
        if (error)
          reject(
            new DistDebugError({
              code: "WORKSPACE_ERROR",
              message: `cp -a ${source} ${target} failed: ${stderr.trim() || error.message}; check free space and permissions of the target`,
              data: { source, target },
              cause: error,
            }),
          );
        else resolve();
      },
    );
  });
}

/**
 * Copies `source` to a new folder `target` (modes, mtimes and symlinks kept, no hard links to
 * the source) and returns the source's manifest digest. `method` `auto` (the default) runs GNU
 * `cp -a` while walking the source for the digest at the same time, else copies in Node.
 */
export async function copyTree(
  source: string,
  target: string,
  options: {
    owner?: Owner | undefined;
    signal?: AbortSignal | undefined;
    method?: "auto" | "node";
  } = {},
): Promise<WalkResult> {
  if ((options.method ?? "auto") === "auto" && (await hasCp())) {
    const copying = runCp(source, target, options.signal);
    copying.catch(() => {});
    // The digest walk runs synchronously while cp works in its own process: no promise per
    // entry, and the event loop has nothing else to do meanwhile.
    let walk: WalkResult;
    try {
      walk = digestTreeSync(source);
    } finally {
      await copying;
    }
    if (options.owner) await chownTree(target, options.owner);
    return walk;
  }
  return walkTree(source, { target, owner: options.owner, signal: options.signal });
}

/** The manifest digest of {@link walkTree}, computed with synchronous calls. */
export function digestTreeSync(source: string): WalkResult {
  const lines: string[] = [];
  let bytes = 0;
  const visit = (rel: string) => {
    const dir = rel === "" ? source : join(source, rel);
    for (const name of readdirSync(dir)) {
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const path = join(source, childRel);
      const stats = lstatSync(path);
      if (stats.isDirectory()) {
        lines.push(manifestLine(childRel, stats, undefined));
        visit(childRel);
      } else if (stats.isSymbolicLink())
        lines.push(manifestLine(childRel, stats, readlinkSync(path)));
      else {
        bytes += stats.size;
        lines.push(manifestLine(childRel, stats, undefined));
      }
    }
  };
  visit("");
  lines.sort();
  const hash = createHash("sha256");
  for (const line of lines) hash.update(line);
  return { digest: hash.digest("hex"), entries: lines.length, bytes };
}
