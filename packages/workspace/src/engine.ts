import { hasGitBinary } from "./internal/git-binary.js";
import { GitBinaryReader } from "./internal/git-reader.js";
import { IsoGitReader } from "./internal/iso-reader.js";
import type { ObjectReader } from "./internal/object-reader.js";

/**
 * How objects are read from the source repository: `git` runs the `git` binary (fast),
 * `isomorphic-git` is pure JavaScript, `auto` (the default) picks `git` when it is on PATH.
 * Both give byte-identical workspaces.
 */
export type GitEngine = "auto" | "git" | "isomorphic-git";

/** Opens an object reader on a git folder with the chosen engine. */
export async function openReader(
  gitdir: string,
  engine: GitEngine = "auto",
): Promise<ObjectReader> {
  const useGit = engine === "git" || (engine === "auto" && (await hasGitBinary()));
  return useGit ? new GitBinaryReader(gitdir) : new IsoGitReader(gitdir);
}
