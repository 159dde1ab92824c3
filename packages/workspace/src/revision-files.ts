import { posix } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import type { GitEngine } from "./engine.js";
import { openReader } from "./engine.js";
import { commitTree, entryKind } from "./git-objects.js";
import type { EolRules } from "./internal/checkout-eol.js";
import type { ObjectReader } from "./internal/object-reader.js";
import { checkoutEol, type FileEntry, walkSourceTree } from "./internal/source-tree.js";
import { compileNeedles, type NeedleMatcher, scrubNeedles } from "./needles.js";
import { gitdirOf } from "./read-file-at-commit.js";

/** Options of {@link openRevisionFiles}. */
export interface OpenRevisionFilesOptions {
  /** A local repository path, or a URL already cloned into `cacheDir`'s repository cache. */
  source: string;
  /** The revision whose files are read (a commit id, branch or tag). */
  commit: string;
  /** Strings scrubbed from every file as `prepareWorkspace` scrubs them. Default none. */
  needles?: readonly string[];
  /** Default {@link defaultCacheDir} (for URL sources). */
  cacheDir?: string;
  engine?: GitEngine;
  signal?: AbortSignal;
}

/**
 * The files of a revision read in place from the object store: the bytes a prepared workspace
 * of that revision holds (needles scrubbed, line endings as a checkout's), without writing one.
 */
export interface RevisionFiles {
  /**
   * The revision's regular files as sorted repository-relative POSIX paths: no symbolic
   * links, submodules or folders (as a directory listing of its workspace without `.git`).
   */
  listFiles(): Promise<string[]>;
  /**
   * The bytes of the file at `path` (repository-relative POSIX); a symbolic link is followed
   * inside the tree. Undefined when `path` is not a file of the revision (a folder, a
   * submodule, a link to nothing). Throws `INVALID_ARGUMENT` for a link that leads outside
   * the tree, `WORKSPACE_ERROR` when the repository cannot be read.
   */
  readFile(path: string): Promise<Buffer | undefined>;
  /**
   * Stops the object reader (a `git cat-file` process, which keeps a process alive while it
   * runs). A later read starts it again; the walked tree is kept. Call it when no read is
   * in flight.
   */
  close(): Promise<void>;
}

/** The walked tree of the revision with what reading a file needs. */
interface OpenedTree {
  reader: ObjectReader;
  files: Map<string, FileEntry>;
  eol: EolRules;
}

/** Symbolic links followed for one read before it counts as a loop (as the kernel's limit). */
const MAX_LINK_HOPS = 40;

/**
 * Opens the files of a revision for reading in place, from the object store (no workspace is
 * prepared or copied): what `prepareWorkspace` would write for the same `needles`, file by
 * file. The tree is walked on the first read; objects are read through one `git cat-file
 * --batch` process (or isomorphic-git), so many reads cost one process.
 *
 * @example
 * ```ts
 * const files = await openRevisionFiles({ source: "repo.git", commit: buggy, needles });
 * const text = (await files.readFile("src/Main.java"))?.toString("utf8");
 * await files.close();
 * ```
 */
export async function openRevisionFiles(options: OpenRevisionFilesOptions): Promise<RevisionFiles> {
  const gitdir = await gitdirOf(options);
  const matcher = compileNeedles(options.needles ?? []);
  let opened: Promise<OpenedTree> | undefined;
  const open = () => {
    opened ??= openTree(gitdir, options);
    // A failed open is tried again by the next read.
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };
  return {
    async listFiles() {
      const { files } = await open();
      return [...files.entries()]
        .filter(([, entry]) => entryKind(entry.mode) !== "symlink")
        .map(([path]) => path)
        .sort();
    },
    async readFile(path) {
      return readResolved(await open(), matcher, path);
    },
    async close() {
      await (await opened?.catch(() => undefined))?.reader.close();
    },
  };
}

async function openTree(gitdir: string, options: OpenRevisionFilesOptions): Promise<OpenedTree> {
  const reader = await openReader(gitdir, options.engine);
  try {
    const commit = await reader.resolve(options.commit);
    const [object] = await reader.readMany([commit]);
    if (object?.type !== "commit")
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `${options.commit} is not a commit of ${options.source}`,
        data: { commit: options.commit },
      });
    const tree = await walkSourceTree(reader, commitTree(object.content), options.signal);
    const eol = await checkoutEol(reader, tree.files);
    const files = new Map(tree.files.map((file) => [file.path.toString("utf8"), file]));
    return { reader, files, eol };
  } catch (error) {
    await reader.close();
    throw error;
  }
}

/** Reads `path`, following symbolic links inside the tree. */
async function readResolved(
  tree: OpenedTree,
  matcher: NeedleMatcher,
  path: string,
): Promise<Buffer | undefined> {
  let current = path;
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    const entry = tree.files.get(current);
    if (!entry) return undefined;
    const [blob] = await tree.reader.readMany([entry.oid]);
    const content = scrubNeedles(blob?.content ?? Buffer.alloc(0), matcher).content;
    if (entryKind(entry.mode) !== "symlink") return tree.eol.convert(current, content);
    current = linkTarget(path, current, content.toString("utf8"));
  }
  return undefined;
}

/** The repository path a link at `at` points to; throws when it leads outside the tree. */
function linkTarget(path: string, at: string, target: string): string {
  const joined = posix.normalize(posix.join(posix.dirname(at), target));
  if (posix.isAbsolute(target) || joined === ".." || joined.startsWith("../"))
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${path}: a link that leads outside the repository`,
      data: { path },
    });
  return joined;
}
