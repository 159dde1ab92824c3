import * as fs from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import git from "isomorphic-git";
import { type FixtureFiles, testdir, writeFixtureFiles } from "./testdir.js";

/** One commit of a fixture repository. */
export interface FixtureCommit {
  /** Files to add or change; `null` deletes a file. */
  files: Record<string, FixtureFiles[string] | null>;
  message: string;
  /** Lightweight tags to put on this commit. */
  tags?: string[];
  /** Annotated tags (name and message) to put on this commit. */
  annotatedTags?: { name: string; message: string }[];
  /** Create this branch at the commit (it stays on the main line). */
  branch?: string;
  /** Seconds since the epoch; default grows by one hour per commit from 2024-01-01. */
  timestamp?: number;
  author?: { name: string; email: string };
}

/** A fixture repository: its folder and the ids of its commits, in order. */
export interface FixtureRepo {
  dir: string;
  commits: string[];
}

/** Options of {@link gitdir}. */
export interface GitdirOptions {
  commits: FixtureCommit[];
  /** Add a remote named `origin` with this URL. */
  remote?: string;
  /** Branch name. Default `main`. */
  defaultBranch?: string;
  /** Folder to use instead of a fresh {@link testdir}. */
  dir?: string;
}

/**
 * Builds a real git repository (with isomorphic-git) in a temporary folder: one commit per
 * entry, with tags, branches and an optional remote, so tests run real git against it.
 *
 * @example
 * ```ts
 * const repo = await gitdir({ commits: [{ files: { "a.txt": "1\n" }, message: "init" }] });
 * ```
 */
export async function gitdir(options: GitdirOptions): Promise<FixtureRepo> {
  const dir = options.dir ?? (await testdir());
  const defaultBranch = options.defaultBranch ?? "main";
  await git.init({ fs, dir, defaultBranch });
  if (options.remote) await git.addRemote({ fs, dir, remote: "origin", url: options.remote });
  const commits: string[] = [];
  let clock = Date.UTC(2024, 0, 1) / 1000;
  for (const commit of options.commits) {
    clock += 3600;
    const timestamp = commit.timestamp ?? clock;
    const present: FixtureFiles = {};
    for (const [path, entry] of Object.entries(commit.files)) {
      if (entry === null) {
        await rm(join(dir, path), { force: true });
        await git.remove({ fs, dir, filepath: path });
      } else present[path] = entry;
    }
    for (const path of Object.keys(present)) await rm(join(dir, path), { force: true });
    await writeFixtureFiles(dir, present);
    for (const path of Object.keys(present)) await git.add({ fs, dir, filepath: path });
    const author = {
      ...(commit.author ?? { name: "Fixture Author", email: "fixture@example.com" }),
      timestamp,
      timezoneOffset: 0,
    };
    const sha = await git.commit({ fs, dir, message: commit.message, author, committer: author });
    commits.push(sha);
    for (const tag of commit.tags ?? []) await git.tag({ fs, dir, ref: tag, object: sha });
    for (const tag of commit.annotatedTags ?? []) {
      await git.annotatedTag({
        fs,
        dir,
        ref: tag.name,
        message: tag.message,
        object: sha,
        tagger: author,
      });
    }
    if (commit.branch) await git.branch({ fs, dir, ref: commit.branch, object: sha });
  }
  return { dir, commits };
}
