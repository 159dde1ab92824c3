import { posix } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import type { GitEngine } from "./engine.js";
import { commitTree, entryKind } from "./git-objects.js";
import { convertEol, type EolRules, type EolVariant } from "./internal/checkout-eol.js";
import type { ObjectReader, RawObject } from "./internal/object-reader.js";
import { sharedReader } from "./internal/reader-pool.js";
import { checkoutEol, type FileEntry, walkSourceTree } from "./internal/source-tree.js";
import { type FoundBlob, TreeLookup } from "./internal/tree-lookup.js";
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
   * Lets go of the object reader: a `git cat-file` process shared by every revision the
   * process opened on the repository, closed a minute after its last user lets go (idle, it
   * never keeps the process alive). A later read takes it again; the walked tree is kept.
   * Call it when no read is in flight.
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
  /**
   * The revision's root tree id (git's, of the tree's bytes: it names every file, mode and
   * `.gitattributes` file) and the rules that make the listing and content keys from it:
   * equal answers give equal `keys`, so what is a pure function of them can be kept by tree.
   * Costs one read of the commit (no walk).
   */
  tree(): Promise<{ id: string; rules: string }>;
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
  files: Map<string, FileEntry>;
  eol: EolRules;
}

/** Symbolic links followed for one read before it counts as a loop (as the kernel's limit). */
const MAX_LINK_HOPS = 40;

/**
 * Opens the files of a revision for reading in place, from the object store (no workspace is
 * prepared or copied): what `prepareWorkspace` would write for the same `needles`, file by
 * file. A read looks its path up through the trees on its way (every name a walk refuses is
 * refused); the whole tree is walked (every name checked) once something needs its listing or
 * content keys, which then answer reads too. Objects are read through one `git cat-file
 * --batch` process (or isomorphic-git) shared by every revision the process opens on the same
 * repository, so many reads, and many revisions, cost one process.
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
  let opened: Promise<OpenedCommit> | undefined;
  let walked: Promise<OpenedTree> | undefined;
  let walkedTree: OpenedTree | undefined;
  const open = () => {
    opened ??= openCommit(gitdir, options);
    // A failed open is tried again by the next read.
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };
  const walk = () => {
    walked ??= open().then(async (commit) => {
      walkedTree = await walkTree(commit, options.signal);
      return walkedTree;
    });
    walked.catch(() => {
      walked = undefined;
    });
    return walked;
  };
  return {
    async listFiles() {
      const { files } = await walk();
      return [...files.entries()]
        .filter(([, entry]) => entryKind(entry.mode) !== "symlink")
        .map(([path]) => path)
        .sort();
    },
    async readFile(path) {
      // Once walked, the tree answers; before, only the trees on the path are read.
      const commit = await open();
      const tree = walkedTree;
      const find: FindBlob = tree
        ? async (at) => {
            const entry = tree.files.get(at);
            return entry && { entry, eol: tree.eol };
          }
        : (at) => commit.lookup.find(at);
      return readResolved(commit.reader, find, matcher, path);
    },
    contents: {
      async tree() {
        return { id: (await open()).root, rules: CONTENT_RULES };
      },
      async keys() {
        const { files, eol } = await walk();
        const keys = new Map<string, string>();
        for (const [path, entry] of files)
          if (entryKind(entry.mode) !== "symlink") keys.set(path, contentKey(entry.oid, eol, path));
        return keys;
      },
      async read(keys) {
        return readContents((await open()).reader, keys);
      },
    },
    async close() {
      await (await opened?.catch(() => undefined))?.reader.close();
    },
  };
}

/**
 * The rules that make a tree's listing and content keys ({@link RevisionContents.tree}):
 * regular files only, line endings as `checkoutEol` converts them. Bump it when they change.
 */
const CONTENT_RULES = "files-eol-1";

/** The revision's commit read: its root tree, looked up path by path until walked. */
interface OpenedCommit {
  reader: ObjectReader;
  root: string;
  lookup: TreeLookup;
}

/** Finds the blob at a path, with its line-ending rules. */
type FindBlob = (path: string) => Promise<FoundBlob | undefined>;

async function openCommit(
  gitdir: string,
  options: OpenRevisionFilesOptions,
): Promise<OpenedCommit> {
  const reader = await sharedReader(gitdir, options.engine);
  try {
    const object = await readCommit(reader, options.commit);
    if (object?.type !== "commit")
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `${options.commit} is not a commit of ${options.source}`,
        data: { commit: options.commit },
      });
    const root = commitTree(object.content);
    return { reader, root, lookup: new TreeLookup(reader, root) };
  } catch (error) {
    await reader.close();
    throw error;
  }
}

/** Every tree of the commit walked (every name checked), with its line-ending rules. */
async function walkTree(
  commit: OpenedCommit,
  signal: AbortSignal | undefined,
): Promise<OpenedTree> {
  const tree = await walkSourceTree(commit.reader, commit.root, signal);
  const eol = await checkoutEol(commit.reader, tree.files);
  const files = new Map(tree.files.map((file) => [file.path.toString("utf8"), file]));
  return { files, eol };
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
  reader: ObjectReader,
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
  const blobs = await reader.readMany(oids);
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
  reader: ObjectReader,
  find: FindBlob,
  matcher: NeedleMatcher,
  path: string,
): Promise<Buffer | undefined> {
  let current = path;
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    const found = await find(current);
    if (!found) return undefined;
    const [blob] = await reader.readMany([found.entry.oid]);
    const content = scrubNeedles(blob?.content ?? Buffer.alloc(0), matcher).content;
    if (entryKind(found.entry.mode) !== "symlink") return found.eol.convert(current, content);
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
