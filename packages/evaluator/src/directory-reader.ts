import { readFile, realpath } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { DistDebugError, listFilesBelow } from "@distdebug/schema";

/** Reads a repository file by its repository-relative path; `undefined` when missing. */
export type ReadFile = (path: string) => Promise<string | Uint8Array | undefined>;

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/**
 * A {@link ReadFile} over a folder (the pristine buggy revision). Paths that escape the folder,
 * also through a symbolic link, throw `INVALID_ARGUMENT`; missing files and folders give
 * `undefined`.
 *
 * @example
 * ```ts
 * const evaluator = createEvaluator({ readFile: directoryReader("/cache/zookeeper@abc123") });
 * ```
 */
export function directoryReader(dir: string): ReadFile {
  const root = resolve(dir);
  let realRoot: Promise<string> | undefined;
  return async (path) => {
    const target = resolve(root, path);
    if (!inside(root, target))
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${path}: outside the repository folder ${root}`,
        data: { path, root },
      });
    let real: string;
    try {
      real = await realpath(target);
    } catch {
      return undefined;
    }
    realRoot ??= realpath(root);
    if (!inside(await realRoot, real))
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${path}: a link that leads outside the repository folder ${root}`,
        data: { path, root },
      });
    try {
      return await readFile(real);
    } catch {
      return undefined;
    }
  };
}

/**
 * Lists a folder's files as sorted repository-relative POSIX paths, skipping `.git` and
 * symbolic links. Pass it as `listFiles` so `repositoryShare` counts the whole repository.
 *
 * @example
 * ```ts
 * createEvaluator({ readFile: directoryReader(dir), listFiles: () => listDirectoryFiles(dir) });
 * ```
 */
export async function listDirectoryFiles(dir: string): Promise<string[]> {
  return listFilesBelow(resolve(dir), {
    skip: (path) => path === ".git" || path.endsWith("/.git"),
  });
}
