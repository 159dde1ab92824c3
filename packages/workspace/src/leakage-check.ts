import { lstat, readFile, readlink } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { DistDebugError, listFilesBelow } from "@distdebug/schema";
import type { GitEngine } from "./engine.js";
import { confirmFixLines, type FixLeaks, openFixLeaks } from "./internal/fix-leaks.js";
import { checkGitFolder } from "./internal/git-leaks.js";
import { LeakScanner } from "./internal/leak-scanner.js";
import { leakageVerdict } from "./internal/leakage-verdict.js";
import {
  hasNeutralTimes,
  NEUTRAL_TIME,
  restoreTimes,
  type StampedEntry,
  stampedEntries,
} from "./internal/neutral-times.js";
import type { LeakageFinding } from "./leakage-finding.js";
import type { WorkspaceCopyProof } from "./workspace-copy-proof.js";

export type { LeakageFinding, LeakageKind } from "./leakage-finding.js";

/** Options of {@link checkLeakage}. */
export interface CheckLeakageOptions {
  /** The workspace to check. */
  dir: string;
  /** Strings that must not appear (issue keys...). Default none. */
  needles?: readonly string[];
  /**
   * The fix: its commit id (full, or any 7+ prefix) must not appear and neither may the
   * distinctive lines it adds (trimmed, 20+ characters, absent at the buggy revision).
   * `buggyCommit` defaults to the fix's first parent. `missingPaths` lists files whose blobs
   * the repository lacks (a mirror snapshot without large files; see
   * `standInForMissingBlobs`): they are not read, so lines only they hold are not known.
   */
  fix?: { repo: string; commit: string; buggyCommit?: string; missingPaths?: readonly string[] };
  /** How git objects are read. Default `auto`. */
  engine?: GitEngine;
  /** Stop collecting after this many findings. Default 1000. */
  maxFindings?: number;
  /**
   * The proof `prepareWorkspace` returned for `dir` (`copyProof`): the verdict recorded beside
   * the base for the same contents and options is reused instead of checking again, and a new
   * verdict is recorded there. Default none: `dir` is checked.
   */
  copyProof?: WorkspaceCopyProof;
}

/** Result of {@link checkLeakage}. */
export interface LeakageReport {
  clean: boolean;
  findings: LeakageFinding[];
  scanned: { files: number; objects: number };
  /** True when the verdict of an identical copy was reused (see `copyProof`). */
  reused: boolean;
}

/** Every entry below `root` but folders (links included), as absolute paths in sorted order. */
async function walkFiles(root: string, skipTopGit: boolean): Promise<string[]> {
  const files = await listFilesBelow(root, {
    allEntries: true,
    ...(skipTopGit ? { skip: (path: string) => path === ".git" } : {}),
  });
  return files.map((path) => join(root, path));
}

/**
 * Scans a workspace for leaks of the future: needles and the fix commit id in files, names,
 * `.git` metadata and every git object; the fix's distinctive added lines; and checks that
 * history is exactly one neutral, parentless commit on one branch, with no other refs, tags,
 * reflog entries, remotes, alternates or unreachable objects, that the objects are stored in
 * the neutral order (the commit, then trees and blobs by path), and that every entry's atime
 * and mtime (folders and `.git` included) is the one neutral date, 2000-01-01. Times are read
 * before anything is read, and put back afterwards where the checker may set them: checking a
 * workspace leaves no atime behind. With `copyProof`, a copy of a cached base whose contents
 * were checked before under the same options gets that verdict without being read.
 *
 * @example
 * ```ts
 * const report = await checkLeakage({
 *   dir: "/tmp/attempt-1/repo",
 *   needles: ["ZOOKEEPER-2845"],
 *   fix: { repo: "/cache/zookeeper.git", commit: fixCommit },
 * });
 * if (!report.clean) for (const f of report.findings) console.log(f.kind, f.file, f.line, f.detail);
 * ```
 */
export async function checkLeakage(options: CheckLeakageOptions): Promise<LeakageReport> {
  const dir = resolve(options.dir);
  await requireDirectory(dir);
  const proof = options.copyProof;
  if (!proof) return { ...(await checkFolder(dir, options)), reused: false };
  if (resolve(proof.dir) !== dir)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `copyProof is the proof of ${proof.dir}, not of ${dir}: pass the proof prepareWorkspace returned for this folder`,
      data: { dir, proofDir: proof.dir },
    });
  const { report, reused } = await leakageVerdict(
    proof,
    {
      needles: options.needles ?? [],
      fix: options.fix,
      maxFindings: options.maxFindings ?? 1000,
    },
    () => checkFolder(dir, options),
  );
  return { ...report, reused };
}

/** The check itself: reads everything under `dir`. */
async function checkFolder(
  dir: string,
  options: CheckLeakageOptions,
): Promise<Omit<LeakageReport, "reused">> {
  const fix = options.fix ? await openFixLeaks(options.fix, options.engine) : undefined;
  try {
    const scanner = new LeakScanner(
      options.needles ?? [],
      fix?.commit,
      fix?.candidates ?? new Set(),
      options.maxFindings ?? 1000,
    );
    const rel = (path: string) => relative(dir, path) || ".";
    const stamped = await stampedEntries(dir);
    checkTimes(stamped, scanner);
    try {
      return await scanAll(dir, scanner, rel, options, fix);
    } finally {
      await putTimesBack(dir, stamped);
    }
  } finally {
    await fix?.reader.close();
  }
}

/** Every time must be the neutral date: build times, or a reader's atimes, tell an order. */
function checkTimes(stamped: readonly StampedEntry[], scanner: LeakScanner): void {
  for (const { rel, stats } of stamped)
    if (!hasNeutralTimes(stats))
      scanner.add({
        kind: "timestamp",
        file: rel || ".",
        detail: `atime ${stats.atime.toISOString()} and mtime ${stats.mtime.toISOString()} (expected both ${new Date(NEUTRAL_TIME * 1000).toISOString()})`,
      });
}

/** Puts back the times the check found (its reads moved atimes); skipped where not allowed. */
async function putTimesBack(dir: string, stamped: readonly StampedEntry[]): Promise<void> {
  const seconds = (ns: bigint) => Number(ns / 1000n) / 1e6;
  const byRel = new Map(stamped.map((entry) => [entry.rel, entry.stats]));
  try {
    await restoreTimes(
      dir,
      stamped.map((entry) => entry.rel),
      (rel) => {
        const stats = byRel.get(rel);
        return stats
          ? [seconds(stats.atimeNs), seconds(stats.mtimeNs)]
          : [NEUTRAL_TIME, NEUTRAL_TIME];
      },
    );
  } catch {
    // Not the owner (a check of someone else's folder): the check itself found what it found.
  }
}

/** The work tree, the git folder and the fix's lines. */
async function scanAll(
  dir: string,
  scanner: LeakScanner,
  rel: (path: string) => string,
  options: CheckLeakageOptions,
  fix: FixLeaks | undefined,
): Promise<Omit<LeakageReport, "reused">> {
  const files = await scanWorkTree(dir, scanner, rel);
  const objects = await checkHistory(dir, scanner, rel, options.engine);
  await addFixLines(scanner, fix);
  return {
    clean: scanner.findings.length === 0,
    findings: scanner.findings,
    scanned: { files, objects },
  };
}

async function requireDirectory(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info?.isDirectory())
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `${dir}: no such workspace folder`,
      data: { dir },
    });
}

/** Scans the work tree's names and contents (symlinks by their target); returns the file count. */
async function scanWorkTree(
  dir: string,
  scanner: LeakScanner,
  rel: (path: string) => string,
): Promise<number> {
  const files = await walkFiles(dir, true);
  for (const path of files) {
    const file = rel(path);
    scanner.scanName(file, file);
    const stats = await lstat(path);
    if (stats.isSymbolicLink())
      scanner.scan(Buffer.from(await readlink(path)), file, "the symlink target ");
    else if (stats.isFile()) scanner.scan(await readFile(path), file, "");
  }
  return files.length;
}

/** Checks the `.git` folder (a missing one is a finding); returns the objects scanned. */
async function checkHistory(
  dir: string,
  scanner: LeakScanner,
  rel: (path: string) => string,
  engine: GitEngine | undefined,
): Promise<number> {
  const gitDir = join(dir, ".git");
  if (!(await lstat(gitDir).catch(() => undefined))?.isDirectory()) {
    scanner.add({
      kind: "history",
      file: ".git",
      detail: "the workspace has no .git folder (expected one neutral commit)",
    });
    return 0;
  }
  return checkGitFolder({
    gitDir,
    scanner,
    rel,
    engine,
    walkFiles: (root) => walkFiles(root, false),
  });
}

/** Fix lines seen, less those that already occur somewhere at the buggy revision. */
async function addFixLines(scanner: LeakScanner, fix: FixLeaks | undefined): Promise<void> {
  for (const hit of await confirmFixLines(scanner.lineHits, fix)) scanner.add(hit.finding);
}
