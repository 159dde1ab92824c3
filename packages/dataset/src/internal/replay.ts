import type { RepoHistory } from "@distdebug/schema";
import {
  blobObject,
  commitObject,
  type GitObject,
  tagObject,
  treeObjects,
} from "@distdebug/workspace";
import type { DatasetProblem } from "../problems.js";

/** One replayed commit: its id, its full tree, its tags. */
export interface ReplayedCommit {
  index: number;
  oid: string;
  message: string;
  role: "buggy" | "fix" | undefined;
  files: ReadonlyMap<string, string>;
  tags: { name: string; oid: string }[];
}

/** A replayed history: every commit, the objects to write, and what went wrong. */
export interface ReplayResult {
  commits: ReplayedCommit[];
  /** Every object of the repository, by id. */
  objects: Map<string, GitObject>;
  buggy: ReplayedCommit | undefined;
  fix: ReplayedCommit | undefined;
  problems: DatasetProblem[];
}

function seconds(date: string): number {
  return Math.floor(Date.parse(date) / 1000);
}

/**
 * Replays `history.json` against the buggy tree in memory: applies each commit's adds,
 * inline files, edits and deletes, and computes the git ids a real build produces.
 * @param tree - the files of `repo/tree/`, by POSIX path.
 * @param file - the history file as named in problems.
 */
export function replayHistory(
  history: RepoHistory,
  tree: ReadonlyMap<string, string>,
  file: string,
): ReplayResult {
  const problems: DatasetProblem[] = [];
  const objects = new Map<string, GitObject>();
  const commits: ReplayedCommit[] = [];
  const state = new Map<string, string>();
  let parent: string | undefined;
  history.commits.forEach((commit, index) => {
    const at = (...rest: (string | number)[]) => ({
      file,
      path: jsonPath(["commits", index, ...rest]),
    });
    commit.add.forEach((pattern, k) => {
      const prefix = pattern === "." ? "" : pattern;
      const matched = [...tree.keys()].filter((path) =>
        prefix.endsWith("/") || prefix === "" ? path.startsWith(prefix) : path === prefix,
      );
      if (matched.length === 0)
        problems.push({
          ...at("add", k),
          message: `no file of tree/ matches ${JSON.stringify(pattern)}`,
        });
      for (const path of matched) state.set(path, tree.get(path)!);
    });
    for (const [path, content] of Object.entries(commit.files)) state.set(path, content);
    commit.edits.forEach((edit, k) => {
      const current = state.get(edit.path);
      if (current === undefined) {
        problems.push({
          ...at("edits", k, "path"),
          message: `${edit.path} does not exist at this commit`,
        });
        return;
      }
      const first = current.indexOf(edit.find);
      if (first < 0 || current.indexOf(edit.find, first + 1) >= 0) {
        problems.push({
          ...at("edits", k, "find"),
          message: `the text must occur exactly once in ${edit.path}; it occurs ${first < 0 ? "nowhere" : "more than once"}`,
        });
        return;
      }
      state.set(
        edit.path,
        current.slice(0, first) + edit.replace + current.slice(first + edit.find.length),
      );
    });
    commit.delete.forEach((path, k) => {
      if (!state.delete(path))
        problems.push({ ...at("delete", k), message: `${path} does not exist at this commit` });
    });
    const blobs = new Map<string, string>();
    for (const [path, content] of state) {
      const blob = blobObject(Buffer.from(content));
      objects.set(blob.oid, blob);
      blobs.set(path, blob.oid);
    }
    const trees = treeObjects(blobs);
    for (const tree of trees) objects.set(tree.oid, tree);
    const author = { ...commit.author, timestamp: seconds(commit.date) };
    const committer = { ...(commit.committer ?? commit.author), timestamp: seconds(commit.date) };
    const made = commitObject({
      tree: trees[trees.length - 1]!.oid,
      parents: parent ? [parent] : [],
      author,
      committer,
      message: commit.message,
    });
    objects.set(made.oid, made);
    parent = made.oid;
    const tags = commit.tags.map((tag) => {
      const made2 = tagObject({
        object: made.oid,
        name: tag.name,
        tagger: committer,
        message: tag.message,
      });
      objects.set(made2.oid, made2);
      return { name: tag.name, oid: made2.oid };
    });
    commits.push({
      index,
      oid: made.oid,
      message: commit.message,
      role: commit.role,
      files: new Map(state),
      tags,
    });
    if (commit.role === "buggy") {
      const missing = [...tree.keys()].filter((path) => !state.has(path));
      const extra = [...state.keys()].filter((path) => !tree.has(path));
      const differ = [...tree.keys()].filter(
        (path) => state.has(path) && state.get(path) !== tree.get(path),
      );
      const list = (paths: string[]) =>
        `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}`;
      if (missing.length > 0)
        problems.push({
          ...at("role"),
          message: `the buggy commit lacks files of tree/: ${list(missing)}`,
        });
      if (extra.length > 0)
        problems.push({
          ...at("role"),
          message: `the buggy commit has files that tree/ lacks: ${list(extra)}`,
        });
      if (differ.length > 0)
        problems.push({
          ...at("role"),
          message: `the buggy commit's files differ from tree/: ${list(differ)}`,
        });
    }
  });
  return {
    commits,
    objects,
    buggy: commits.find((commit) => commit.role === "buggy"),
    fix: commits.find((commit) => commit.role === "fix"),
    problems,
  };
}

/** `$.commits[3].edits[0].find` */
export function jsonPath(keys: readonly (string | number)[]): string {
  return `$${keys.map((key) => (typeof key === "number" ? `[${key}]` : `.${key}`)).join("")}`;
}
