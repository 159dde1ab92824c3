import { DistDebugError } from "@distdebug/schema";
import { defaultCacheDir } from "./cache-dir.js";
import { type GitEngine, openReader } from "./engine.js";
import { commitParents } from "./fix-lines.js";
import { commitTree, entryKind, parseTree } from "./git-objects.js";
import { isUrl, localGitDir, openSource } from "./internal/source-repo.js";

/** The git folder of a local repository, or of a URL's clone in the cache. */
export function gitdirOf(options: {
  source: string;
  commit: string;
  cacheDir?: string;
}): Promise<string> {
  return isUrl(options.source)
    ? openSource({
        source: options.source,
        cacheDir: options.cacheDir ?? defaultCacheDir(),
        commit: options.commit,
        hasCommit: async () => true,
      })
    : localGitDir(options.source);
}

/** Options of {@link readFileAtCommit}. */
export interface ReadFileAtCommitOptions {
  /** A local repository path, or a URL already cloned into `cacheDir`'s repository cache. */
  source: string;
  commit: string;
  /** POSIX path inside the repository. */
  path: string;
  /** Default {@link defaultCacheDir} (for URL sources). */
  cacheDir?: string;
  engine?: GitEngine;
}

/**
 * Reads one file of the pristine source tree at a commit (before any needle scrubbing), for
 * scorers that must not trust an agent's edited copy. Throws `FILE_NOT_FOUND` when the path
 * is not a file at that commit.
 *
 * @example
 * ```ts
 * const bytes = await readFileAtCommit({ source: repoDir, commit: buggy, path: "src/Main.java" });
 * ```
 */
export async function readFileAtCommit(options: ReadFileAtCommitOptions): Promise<Buffer> {
  const gitdir = await gitdirOf(options);
  const reader = await openReader(gitdir, options.engine);
  try {
    const commit = await reader.resolve(options.commit);
    const [commitObject] = await reader.readMany([commit]);
    let oid = commitTree(commitObject?.content ?? Buffer.alloc(0));
    const parts = options.path.split("/").filter((part) => part !== "");
    for (const [index, part] of parts.entries()) {
      const [tree] = await reader.readMany([oid]);
      const entry = parseTree(tree?.content ?? Buffer.alloc(0)).find(
        (item) => item.name.toString("utf8") === part,
      );
      const last = index === parts.length - 1;
      const kind = entry ? entryKind(entry.mode) : undefined;
      if (!entry || (last ? kind === "tree" || kind === "submodule" : kind !== "tree"))
        throw new DistDebugError({
          code: "FILE_NOT_FOUND",
          message: `${options.path}: not a file at commit ${options.commit} of ${options.source}`,
          data: { path: options.path, commit: options.commit },
        });
      oid = entry.oid;
    }
    const [blob] = await reader.readMany([oid]);
    return blob?.content ?? Buffer.alloc(0);
  } finally {
    await reader.close();
  }
}

/** A commit's id, tree and parents (see {@link readCommit}). */
export interface CommitInfo {
  id: string;
  tree: string;
  parents: string[];
}

/**
 * Reads a commit's tree and parents from a local repository (or a URL already in the cache).
 * Throws `WORKSPACE_ERROR` when the revision is not a commit there.
 *
 * @example
 * ```ts
 * const { parents } = await readCommit({ source: mirror, commit: fixCommit });
 * ```
 */
export async function readCommit(
  options: Omit<ReadFileAtCommitOptions, "path">,
): Promise<CommitInfo> {
  const gitdir = await gitdirOf(options);
  const reader = await openReader(gitdir, options.engine);
  try {
    const id = await reader.resolve(options.commit);
    const [object] = await reader.readMany([id]);
    if (object?.type !== "commit")
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `${options.commit} is not a commit of ${options.source}`,
        data: { commit: options.commit },
      });
    return { id, tree: commitTree(object.content), parents: commitParents(object.content) };
  } catch (error) {
    if (DistDebugError.isInstance(error)) throw error;
    throw new DistDebugError({
      code: "WORKSPACE_ERROR",
      message: `${options.commit}: no such commit in ${options.source}`,
      data: { commit: options.commit },
      cause: error,
    });
  } finally {
    await reader.close();
  }
}
