import { posix } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import type { GitEngine } from "./engine.js";
import { openReader } from "./engine.js";
import { commitTree, entryKind } from "./git-objects.js";
import { convertEol, type EolRules, type EolVariant } from "./internal/checkout-eol.js";
import type { ObjectReader, RawObject } from "./internal/object-reader.js";
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
   * The listed files by content, for what is a pure function of their bytes (a scorer's row
   * counts): see {@link RevisionContents}.
   */
  readonly contents: RevisionContents;
  /**
   * Stops the object reader (a `git cat-file` process, which keeps a process alive while it
   * runs). A later read starts it again; the walked tree is kept. Call it when no read is
   * in flight.
   */
  close(): Promise<void>;
}

/**
 * The regular files of a revision by content key: the blob id, with `:crlf` or `:crlf-auto`
 * when a checkout converts its line endings (the same key always names the same bytes, in any
 * repository). The bytes are read without needle scrubbing, which changes bytes within a line
 * and never a line break: use them for what scrubbing cannot change (non-blank lines), never
 * to show them.
 */
export interface RevisionContents {
  /** The content key of each listed file (`listFiles`: no symbolic links). */
  keys(): Promise<Map<string, string>>;
  /**
   * The bytes of content keys of this revision, as a checkout writes them but not scrubbed,
   * read through one batch of the object reader. Throws `INVALID_ARGUMENT` for a key that is
   * not one `keys` gives.
   */
  read(keys: readonly string[]): Promise<Map<string, Buffer>>;
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
    contents: {
      async keys() {
        const { files, eol } = await open();
        const keys = new Map<string, string>();
        for (const [path, entry] of files)
          if (entryKind(entry.mode) !== "symlink") keys.set(path, contentKey(entry.oid, eol, path));
        return keys;
      },
      async read(keys) {
        return readContents(await open(), keys);
      },
    },
    async close() {
      await (await opened?.catch(() => undefined))?.reader.close();
    },
  };
}

async function openTree(gitdir: string, options: OpenRevisionFilesOptions): Promise<OpenedTree> {
  const reader = await openReader(gitdir, options.engine);
  try {
    const object = await readCommit(reader, options.commit);
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

/**
 * The commit object of a revision. A full object id that names a commit is read as it is
 * (one request to the running object reader); anything else is resolved first (a
 * `git rev-parse` process: rescoring opens one revision per incident).
 */
async function readCommit(reader: ObjectReader, revision: string): Promise<RawObject | undefined> {
  if (/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(revision)) {
    const [object] = await reader.readMany([revision]).catch(() => []);
    if (object?.type === "commit") return object;
  }
  const [object] = await reader.readMany([await reader.resolve(revision)]);
  return object;
}

function contentKey(oid: string, eol: EolRules, path: string): string {
  const variant = eol.variant(path);
  return variant === "" ? oid : `${oid}:${variant}`;
}

/** The unscrubbed bytes of content keys, in one batch of object reads. */
async function readContents(
  tree: OpenedTree,
  keys: readonly string[],
): Promise<Map<string, Buffer>> {
  const parsed = [...new Set(keys)].map((key) => {
    const [oid = "", variant = ""] = key.split(":");
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid) || !EOL_VARIANTS.has(variant))
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${key}: not a content key of this revision (a blob id, optionally :crlf or :crlf-auto)`,
        data: { key },
      });
    return { key, oid, variant: variant as EolVariant };
  });
  const oids = [...new Set(parsed.map((entry) => entry.oid))];
  const blobs = await tree.reader.readMany(oids);
  const byOid = new Map<string, Buffer>();
  blobs.forEach((blob, at) => {
    if (blob.type === "blob") byOid.set(oids[at] as string, blob.content);
  });
  const out = new Map<string, Buffer>();
  for (const { key, oid, variant } of parsed) {
    const content = byOid.get(oid);
    if (content) out.set(key, convertEol(variant, content));
  }
  return out;
}
const EOL_VARIANTS = new Set<string>(["", "crlf", "crlf-auto"]);

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
