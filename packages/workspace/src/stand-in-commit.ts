import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gitEnv, hasGitBinary, runGit } from "./internal/git-binary.js";

/** Options of {@link standInForMissingBlobs}. */
export interface StandInOptions {
  /** A git folder (bare or not) that may lack some blobs of `commit`'s tree. */
  source: string;
  commit: string;
  /** An empty or missing folder for the stand-in repository (the caller removes it). */
  dir: string;
  signal?: AbortSignal;
}

/** A commit like `commit` but with every blob the source lacks replaced by an empty file. */
export interface StandInCommit {
  /** The stand-in repository: a bare git folder borrowing the source's objects. */
  source: string;
  commit: string;
  /** The paths whose blobs the source lacks (empty files in the stand-in), sorted. */
  missing: string[];
}

/**
 * For checks against mirror snapshots that omit some blobs (for example files of 4 MiB and
 * more): finds the blobs of `commit`'s tree that `source` lacks and, when there are any,
 * writes a stand-in commit whose tree has an empty file at each of those paths (same mode),
 * in a bare repository at `dir` that borrows `source`'s objects through alternates. Returns
 * undefined when nothing is missing, or when no `git` binary is on PATH (the check needs it).
 * What the empty files stand for was not seen: callers must say so.
 *
 * @example
 * ```ts
 * const standIn = await standInForMissingBlobs({ source: mirror, commit, dir: scratch });
 * const workspace = await prepareWorkspace({ source: standIn?.source ?? mirror, commit: standIn?.commit ?? commit, dir });
 * ```
 */
export async function standInForMissingBlobs(
  options: StandInOptions,
): Promise<StandInCommit | undefined> {
  if (!(await hasGitBinary())) return undefined;
  const git = (args: string[], extra: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
    runGit(args, { ...extra, ...(options.signal ? { signal: options.signal } : {}) });
  const gitDir = await gitDirOf(git, options.source);
  const listed = await git([
    `--git-dir=${gitDir}`,
    "rev-list",
    "--objects",
    "--missing=print",
    "--no-walk",
    options.commit,
  ]);
  const missingIds = new Set(
    listed
      .toString("utf8")
      .split("\n")
      .filter((line) => line.startsWith("?"))
      .map((line) => line.slice(1).trim()),
  );
  if (missingIds.size === 0) return undefined;
  const entries = await missingEntries(git, gitDir, options.commit, missingIds);
  await git(["init", "--quiet", "--bare", options.dir]);
  await mkdir(join(options.dir, "objects", "info"), { recursive: true });
  await writeFile(
    join(options.dir, "objects", "info", "alternates"),
    `${join(gitDir, "objects")}\n`,
  );
  const standInGit = (args: string[], input?: string) =>
    git([`--git-dir=${options.dir}`, ...args], {
      ...(input === undefined ? {} : { input }),
      env: { ...gitEnv(), GIT_INDEX_FILE: join(options.dir, "stand-in.index") },
    });
  const empty = (await standInGit(["hash-object", "-w", "--stdin"], "")).toString("utf8").trim();
  await standInGit(["read-tree", options.commit]);
  await standInGit(
    ["update-index", "-z", "--index-info"],
    entries.map((entry) => `${entry.mode} ${empty}\t${entry.path}\0`).join(""),
  );
  const tree = (await standInGit(["write-tree"])).toString("utf8").trim();
  const commit = (
    await git(
      [
        `--git-dir=${options.dir}`,
        "-c",
        "user.name=distdebug",
        "-c",
        "user.email=distdebug@localhost",
        "commit-tree",
        tree,
        "-p",
        options.commit,
        "-m",
        "stand-in: blobs missing from the source are empty",
      ],
      {},
    )
  )
    .toString("utf8")
    .trim();
  return { source: options.dir, commit, missing: entries.map((entry) => entry.path).sort() };
}

type Git = (args: string[], extra?: { input?: string; env?: NodeJS.ProcessEnv }) => Promise<Buffer>;

/** The tree entries (mode, path) of `commit` whose blob ids are in `ids`. */
async function missingEntries(
  git: Git,
  gitDir: string,
  commit: string,
  ids: ReadonlySet<string>,
): Promise<{ mode: string; path: string }[]> {
  const listing = await git([`--git-dir=${gitDir}`, "ls-tree", "-r", "-z", commit]);
  const entries: { mode: string; path: string }[] = [];
  for (const record of listing.toString("utf8").split("\0")) {
    const match = /^(\d+) blob ([0-9a-f]{40,64})\t(.*)$/s.exec(record);
    if (match && ids.has(match[2]!)) entries.push({ mode: match[1]!, path: match[3]! });
  }
  return entries;
}

/** The git folder of a repository given as a bare folder or a work tree. */
async function gitDirOf(git: Git, source: string): Promise<string> {
  return (
    await git([`--git-dir=${source}`, "rev-parse", "--absolute-git-dir"]).catch(() =>
      git(["-C", source, "rev-parse", "--absolute-git-dir"]),
    )
  )
    .toString("utf8")
    .trim();
}
