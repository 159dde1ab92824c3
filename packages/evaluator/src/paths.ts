import { posix } from "node:path";

/** Options of {@link normalizeRepoPath}. */
export interface NormalizePathOptions {
  /**
   * Absolute folders that stand for the repository root: the sandbox mount and the host
   * workspace. Default `["/workspace"]`.
   */
  roots?: readonly string[];
}

/** A normalized path: repository-relative POSIX candidates, or outside the repository. */
export type NormalizedPath =
  | { outside: false; candidates: string[] }
  | { outside: true; path: string };

/**
 * Turns a path as an agent wrote it into repository-relative POSIX candidates, most likely
 * first: backslashes become `/`, `./` and a workspace root prefix are stripped, `..` is
 * resolved; a diff prefix `a/` or `b/` gives a second candidate. A path that climbs out of
 * the repository or is absolute outside every root is `outside`.
 *
 * @example
 * ```ts
 * normalizeRepoPath("/workspace/./src/Foo.java"); // { outside: false, candidates: ["src/Foo.java"] }
 * normalizeRepoPath("b/src/Foo.java"); // candidates ["b/src/Foo.java", "src/Foo.java"]
 * normalizeRepoPath("../etc/passwd"); // { outside: true, path: "../etc/passwd" }
 * ```
 */
export function normalizeRepoPath(raw: string, options: NormalizePathOptions = {}): NormalizedPath {
  const roots = [...(options.roots ?? ["/workspace"])]
    .map((root) => root.replace(/\\/g, "/").replace(/\/+$/, ""))
    .filter((root) => root !== "")
    .sort((a, b) => b.length - a.length);
  let path = raw.trim().replace(/\\/g, "/");
  if (path.startsWith("/")) {
    const root = roots.find((candidate) => path === candidate || path.startsWith(`${candidate}/`));
    if (!root) return { outside: true, path: raw };
    path = path.slice(root.length + 1);
  }
  path = posix.normalize(path === "" ? "." : path);
  while (path.startsWith("./")) path = path.slice(2);
  path = path.replace(/\/+$/, "");
  if (
    path === "." ||
    path === "" ||
    path === ".." ||
    path.startsWith("../") ||
    path.startsWith("/")
  )
    return { outside: true, path: raw };
  const candidates = [path];
  const diffPrefix = /^[ab]\/(.+)$/.exec(path);
  if (diffPrefix?.[1]) candidates.push(diffPrefix[1]);
  return { outside: false, candidates };
}
