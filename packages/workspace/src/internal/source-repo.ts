import { createHash } from "node:crypto";
import { mkdir, readFile, realpath, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { type CloneEngine, cloneBare, cloneEngine, fetchAll } from "./clone.js";
import { tempSibling, withLock } from "./temp-files.js";

/** True when `source` is a URL rather than a local path. */
export function isUrl(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source);
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Finds the git folder of a local repository (work tree, `.git` file or bare). */
export async function localGitDir(path: string): Promise<string> {
  const absolute = resolve(path);
  const dotGit = join(absolute, ".git");
  const info = await stat(dotGit).catch(() => undefined);
  if (info?.isDirectory()) return realpath(dotGit);
  if (info?.isFile()) {
    const text = await readFile(dotGit, "utf8");
    const match = /^gitdir: (.+)$/m.exec(text);
    if (match?.[1]) return realpath(resolve(absolute, match[1].trim()));
  }
  if (
    (await isDir(join(absolute, "objects"))) &&
    (await stat(join(absolute, "HEAD")).catch(() => undefined))
  ) {
    return realpath(absolute);
  }
  throw new DistDebugError({
    code: "WORKSPACE_ERROR",
    message: `${path}: not a git repository (no .git folder, and not a bare repository with HEAD and objects/)`,
    data: { path },
  });
}

/** A stable key naming a source in caches: the URL, or the real path of a local repository. */
export async function sourceKey(source: string): Promise<string> {
  return isUrl(source) ? source : localGitDir(source);
}

export interface SourceEvents {
  onClone?: (phase: "start" | "end", url: string) => void;
  onFetch?: (phase: "start" | "end", url: string) => void;
}

/**
 * The git folder to read `source` from. A local path is read in place; a URL is cloned once
 * (bare, with the git binary or else isomorphic-git) into `<cacheDir>/repos/<hash>.git`, and fetched again
 * when `commit` is missing. Clones and fetches hold a lock; a clone is renamed into place
 * only when complete.
 */
export async function openSource(options: {
  source: string;
  cacheDir: string;
  commit: string;
  hasCommit: (gitdir: string) => Promise<boolean>;
  /** Default `auto`: the git binary when it is on PATH, else isomorphic-git. */
  engine?: "auto" | CloneEngine | undefined;
  signal?: AbortSignal | undefined;
  events?: SourceEvents;
}): Promise<string> {
  const { source, cacheDir } = options;
  if (!isUrl(source)) return localGitDir(source);
  if (!/^https?:\/\//i.test(source))
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${source}: only http(s) URLs and local paths are supported as repository sources`,
    });
  const repos = join(cacheDir, "repos");
  await mkdir(repos, { recursive: true });
  const name = createHash("sha256").update(source).digest("hex").slice(0, 24);
  const gitdir = join(repos, `${name}.git`);
  const engine = await cloneEngine(options.engine);
  return withLock(
    `${gitdir}.lock`,
    async () => {
      if (!(await isDir(gitdir))) {
        options.events?.onClone?.("start", source);
        const temp = tempSibling(gitdir);
        try {
          await cloneBare(source, temp, engine, options.signal);
          await rename(temp, gitdir);
        } catch (error) {
          await rm(temp, { recursive: true, force: true });
          throw new DistDebugError({
            code: "WORKSPACE_ERROR",
            message: `could not clone ${source}: ${(error as Error).message}`,
            data: { source },
            cause: error,
          });
        }
        options.events?.onClone?.("end", source);
      }
      if (!(await options.hasCommit(gitdir))) {
        options.events?.onFetch?.("start", source);
        await fetchAll(gitdir, source, options.commit, engine, options.signal);
        options.events?.onFetch?.("end", source);
      }
      return gitdir;
    },
    { signal: options.signal },
  );
}
