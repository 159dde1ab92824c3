import * as fs from "node:fs";
import git from "isomorphic-git";
import http from "isomorphic-git/http/node";
import { hasGitBinary, runGit } from "./git-binary.js";

/** Which implementation clones and fetches: the `git` binary, or isomorphic-git. */
export type CloneEngine = "git" | "isomorphic-git";

/**
 * Variables that tell git where a repository or work tree is: dropped so the clone never
 * touches the caller's repository. Configuration variables (`GIT_CONFIG_GLOBAL`,
 * `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, ...) are kept: git's own configuration applies to
 * clones, so `url.<base>.insteadOf` can point GitHub URLs at a mirror.
 */
const LOCATION_VARIABLES = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_COMMON_DIR",
  "GIT_CEILING_DIRECTORIES",
]);

/** The environment of a clone or fetch: the caller's, without repository locations, never prompting. */
export function cloneEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (!LOCATION_VARIABLES.has(key)) result[key] = value;
  }
  result.GIT_TERMINAL_PROMPT = "0";
  return result;
}

/** The engine for `engine` (`auto`: the git binary when it is on PATH). */
export async function cloneEngine(engine: "auto" | CloneEngine = "auto"): Promise<CloneEngine> {
  if (engine !== "auto") return engine;
  return (await hasGitBinary()) ? "git" : "isomorphic-git";
}

/**
 * Clones `url` as a bare repository into `target` (which must not exist): with the git
 * binary `git clone --bare` (git's configuration applies), else isomorphic-git.
 */
export async function cloneBare(
  url: string,
  target: string,
  engine: CloneEngine,
  signal?: AbortSignal,
): Promise<void> {
  if (engine === "git") {
    await runGit(["clone", "--bare", "--quiet", "--", url, target], {
      env: cloneEnv(),
      ...(signal ? { signal } : {}),
    });
    return;
  }
  await git.clone({ fs, http, dir: target, gitdir: target, url, noCheckout: true, noTags: false });
  await git.setConfig({ fs, gitdir: target, path: "core.bare", value: true });
}

/**
 * Fetches every branch and tag of `url` into the bare repository `gitdir`, and then
 * `commit` itself when it is on no branch (servers that allow fetching reachable ids).
 */
export async function fetchAll(
  gitdir: string,
  url: string,
  commit: string,
  engine: CloneEngine,
  signal?: AbortSignal,
): Promise<void> {
  if (engine === "git") {
    const options = { env: cloneEnv(), ...(signal ? { signal } : {}) };
    const fetch = ["--git-dir", gitdir, "fetch", "--quiet", "--tags", "--", url];
    await runGit([...fetch, "+refs/heads/*:refs/heads/*"], options);
    await runGit([...fetch, commit], options).catch(() => undefined);
    return;
  }
  await git.fetch({ fs, http, gitdir, url, singleBranch: false, tags: true });
}
