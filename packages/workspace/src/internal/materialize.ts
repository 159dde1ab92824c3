import {
  chmodSync,
  closeSync,
  fchmod,
  mkdirSync,
  openSync,
  symlinkSync,
  write,
  writeFileSync,
} from "node:fs";
import { mkdir, open, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError, errorMessage } from "@distdebug/schema";
import {
  commitObject,
  commitTree,
  entryKind,
  type GitSignature,
  hashObject,
  serializeTree,
  type TreeEntry,
} from "../git-objects.js";
import type { NeedleMatcher } from "../needles.js";
import { scrubNeedles } from "../needles.js";
import type { EolRules } from "./checkout-eol.js";
import { type IndexEntry, serializeIndex } from "./index-writer.js";
import { neutralObjectOrder } from "./neutral-order.js";
import { NEUTRAL_TIME, neutralizeTimes } from "./neutral-times.js";
import type { ObjectReader } from "./object-reader.js";
import { PackWriter } from "./pack-writer.js";
import {
  checkAborted,
  checkoutEol,
  type FileEntry,
  type SourceTree,
  walkSourceTree,
} from "./source-tree.js";

export { NEUTRAL_TIME };

/** The author and committer of the one workspace commit. */
const NEUTRAL_PERSON: GitSignature = {
  name: "DistDebug",
  email: "workspace@distdebug.invalid",
  timestamp: NEUTRAL_TIME,
};
/** The identity, date and message of the one workspace commit. */
export const NEUTRAL_IDENTITY = `${NEUTRAL_PERSON.name} <${NEUTRAL_PERSON.email}>`;
export const NEUTRAL_MESSAGE = "Workspace at the revision under investigation\n";
export const WORKSPACE_BRANCH = "main";

/** The `.git/config` of every workspace. */
export const WORKSPACE_CONFIG = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
\tcheckStat = minimal
\ttrustctime = false
`;

export interface Replacement {
  file: string;
  line: number;
  needle: string;
}

export interface MaterializeResult {
  sourceTree: string;
  tree: string;
  commit: string;
  files: number;
  bytes: number;
  replacements: Replacement[];
  submodules: string[];
}

export interface MaterializeOptions {
  reader: ObjectReader;
  /** Full id of the source commit. */
  commit: string;
  /** An existing empty folder to fill. */
  dir: string;
  matcher: NeedleMatcher;
  compressionLevel: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((done: number, total: number) => void) | undefined;
}

const BATCH_OBJECTS = 256;
const WRITERS = 16;

async function fileUmaskStripsBits(dir: string): Promise<boolean> {
  const probe = join(dir, ".distdebug-umask-probe");
  const handle = await open(probe, "w", 0o755);
  await handle.close();
  const mode = (await stat(probe)).mode & 0o777;
  await unlink(probe);
  return mode !== 0o755;
}

/** What writing the blobs did: the new id of each scrubbed blob, sizes and replacements. */
interface WrittenBlobs {
  newBlobId: Map<string, string>;
  /** Size of each (scrubbed) blob by source id. */
  sizes: Map<string, number>;
  /** Size in the work tree of files whose line endings were converted. */
  worktreeSizes: Map<FileEntry, number>;
  replacements: Replacement[];
  bytes: number;
}

/**
 * Writes the tree of `commit` into `dir` (scrubbing needles) and makes `dir` a git repository
 * whose only commit is that tree, with a neutral identity. Line endings follow the tree's
 * `.gitattributes` as a checkout's do (the commit keeps the repository's blobs). Both readers
 * give the same bytes.
 */
export async function materialize(options: MaterializeOptions): Promise<MaterializeResult> {
  const { reader, dir } = options;
  const [source] = await reader.readMany([options.commit]);
  if (source?.type !== "commit")
    throw new DistDebugError({
      code: "WORKSPACE_ERROR",
      message: `${options.commit} is not a commit`,
    });
  const tree = await walkSourceTree(reader, commitTree(source.content), options.signal);
  const fixMode = await makeFolders(dir, tree);
  const eol = await checkoutEol(reader, tree.files);
  const pack = new PackWriter(options.compressionLevel);
  const written = await writeBlobs(options, tree, { eol, fixMode, pack });
  const { root: newTree, entries: newTrees } = rewriteTrees(tree, written.newBlobId, pack);
  const { oid: commit, payload: commitContent } = commitObject({
    tree: newTree,
    parents: [],
    author: NEUTRAL_PERSON,
    committer: NEUTRAL_PERSON,
    message: NEUTRAL_MESSAGE,
  });
  pack.add(commit, "commit", commitContent);
  const order = neutralObjectOrder(commit, newTree, (oid) => newTrees.get(oid));
  await writeGitDir(dir, pack.ordered(order), indexEntries(tree, written), commit);
  // Last: every time (files, folders, .git) the same fixed date, set after the last write.
  await neutralizeTimes(dir);
  return {
    sourceTree: tree.root,
    tree: newTree,
    commit,
    files: tree.files.length,
    bytes: written.bytes,
    replacements: written.replacements,
    submodules: tree.submodules.map((submodule) => submodule.path.toString("utf8")),
  };
}

/**
 * Creates every folder (submodules as empty ones) in path order, so creation order (and inode
 * numbers as far as they follow it) says nothing but the paths; returns whether the umask
 * strips mode bits.
 */
async function makeFolders(dir: string, tree: SourceTree): Promise<boolean> {
  const dirBytes = Buffer.from(`${dir}/`);
  const fixMode = await fileUmaskStripsBits(dir);
  if (fixMode) chmodSync(dir, 0o755);
  const folders = [...tree.dirs, ...tree.submodules.map((submodule) => submodule.path)];
  for (const path of folders.sort(Buffer.compare)) {
    const target = Buffer.concat([dirBytes, path]);
    mkdirSync(target);
    // Folders are 755 whatever the umask, so a sandbox user can read the tree.
    if (fixMode) chmodSync(target, 0o755);
  }
  return fixMode;
}

/** How blobs are written: line endings, the umask fix, and the pack that collects objects. */
interface BlobSink {
  eol: EolRules;
  fixMode: boolean;
  pack: PackWriter;
}

/**
 * Writes the files in path order, in batches: each batch's blobs are read (the next batch
 * while this one is written), scrubbed and added to the pack, and its files are created one
 * after another in path order (creation order, and inode numbers as far as they follow it,
 * say nothing but the paths), then filled concurrently. Never in the source's storage order:
 * a server's pack puts the files a fix changed last.
 */
async function writeBlobs(
  options: MaterializeOptions,
  tree: SourceTree,
  sink: BlobSink,
): Promise<WrittenBlobs> {
  const { reader, signal } = options;
  const { files } = tree;
  const written: WrittenBlobs = {
    newBlobId: new Map(),
    sizes: new Map(),
    worktreeSizes: new Map(),
    replacements: [],
    bytes: 0,
  };
  const readBatch = (from: number) => {
    const to = Math.min(files.length, from + BATCH_OBJECTS);
    const objects = reader.readMany([...new Set(files.slice(from, to).map((file) => file.oid))]);
    // Awaited below; this keeps an abandoned read (after an abort) from being unhandled.
    objects.catch(() => {});
    return { from, to, objects };
  };
  let pending = files.length > 0 ? readBatch(0) : undefined;
  while (pending) {
    checkAborted(signal);
    const batch = pending;
    const objects = await batch.objects;
    pending = batch.to < files.length ? readBatch(batch.to) : undefined;
    const { jobs, packed } = scrubBatch(
      files.slice(batch.from, batch.to),
      objects,
      options.matcher,
      written,
    );
    // The files are written in the thread pool while this thread compresses the batch.
    const writing = writeFiles(options.dir, jobs, sink, written);
    writing.catch(() => {});
    for (const blob of packed) sink.pack.add(blob.oid, "blob", blob.content);
    await writing;
    options.onProgress?.(batch.to, files.length);
  }
  return written;
}

/**
 * Scrubs one batch of blobs; returns the files to write with their content (in path order)
 * and the blobs to pack.
 */
function scrubBatch(
  files: readonly FileEntry[],
  objects: Awaited<ReturnType<ObjectReader["readMany"]>>,
  matcher: NeedleMatcher,
  written: WrittenBlobs,
): {
  jobs: { file: FileEntry; content: Buffer }[];
  packed: { oid: string; content: Buffer }[];
} {
  const scrubbedById = new Map<string, ReturnType<typeof scrubNeedles>>();
  const packed: { oid: string; content: Buffer }[] = [];
  for (const object of objects) {
    const scrubbed = scrubNeedles(object.content, matcher);
    const oid = scrubbed.matches.length > 0 ? hashObject("blob", scrubbed.content) : object.oid;
    scrubbedById.set(object.oid, scrubbed);
    written.newBlobId.set(object.oid, oid);
    written.sizes.set(object.oid, scrubbed.content.length);
    packed.push({ oid, content: scrubbed.content });
  }
  const jobs: { file: FileEntry; content: Buffer }[] = [];
  for (const file of files) {
    const scrubbed = scrubbedById.get(file.oid);
    if (!scrubbed)
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `blob ${file.oid} of ${file.path.toString("utf8")} could not be read`,
      });
    jobs.push({ file, content: scrubbed.content });
    written.bytes += scrubbed.content.length;
    for (const match of scrubbed.matches)
      written.replacements.push({
        file: file.path.toString("utf8"),
        line: match.line,
        needle: match.needle,
      });
  }
  return { jobs, packed };
}

/** A created regular file still to fill: its descriptor and content. */
interface OpenFile {
  /** The file's path (for the error when writing fails). */
  path: string;
  fd: number;
  content: Buffer;
  mode: number;
}

/**
 * Creates the files and symlinks of a batch one after another in path order (synchronously, so
 * the order holds), then fills the files {@link WRITERS} at a time.
 */
async function writeFiles(
  dir: string,
  jobs: readonly { file: FileEntry; content: Buffer }[],
  sink: BlobSink,
  written: WrittenBlobs,
): Promise<void> {
  const dirBytes = Buffer.from(`${dir}/`);
  const created: OpenFile[] = [];
  try {
    for (const { file, content: blob } of jobs) {
      const target = Buffer.concat([dirBytes, file.path]);
      if (entryKind(file.mode) === "symlink") {
        symlinkSync(blob, target);
        continue;
      }
      const content = sink.eol.convert(file.path.toString("utf8"), blob);
      if (content !== blob) written.worktreeSizes.set(file, content.length);
      const mode = file.mode === "100755" ? 0o755 : 0o644;
      created.push({
        path: target.toString("utf8"),
        fd: openSync(target, "wx", mode),
        content,
        mode,
      });
    }
    let next = 0;
    let failed = false;
    // Every writer ends before the finally closes the descriptors: a write still in flight on a
    // closed descriptor could land in whatever file or pipe reuses its number.
    const writers = await Promise.allSettled(
      Array.from({ length: Math.min(WRITERS, created.length) }, async () => {
        while (next < created.length && !failed) {
          const job = created[next++];
          if (job)
            await fillFile(job, sink.fixMode).catch((error: unknown) => {
              failed = true;
              throw new DistDebugError({
                code: "WORKSPACE_ERROR",
                message: `${job.path}: cannot write the workspace file (${errorMessage(error)})`,
                data: { file: job.path },
                cause: error,
              });
            });
        }
      }),
    );
    const failure = writers.find((writer) => writer.status === "rejected");
    if (failure) throw failure.reason;
  } finally {
    for (const job of created) closeSync(job.fd);
  }
}

/** Writes a created file's content (and its mode where the umask stripped bits). */
async function fillFile(job: OpenFile, fixMode: boolean): Promise<void> {
  let at = 0;
  while (at < job.content.length) {
    const { bytesWritten } = await writeAt(job.fd, job.content, at);
    at += bytesWritten;
  }
  if (fixMode) await fchmodAsync(job.fd, job.mode);
}

function writeAt(fd: number, content: Buffer, at: number): Promise<{ bytesWritten: number }> {
  return new Promise((resolve, reject) =>
    write(fd, content, at, content.length - at, at, (error, bytesWritten) =>
      error ? reject(error) : resolve({ bytesWritten }),
    ),
  );
}

function fchmodAsync(fd: number, mode: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fchmod(fd, mode, (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * Rewrites the trees whose blobs changed, bottom up, memoized by id; returns the root's id
 * and every written tree's entries by its id.
 */
function rewriteTrees(
  tree: SourceTree,
  newBlobId: ReadonlyMap<string, string>,
  pack: PackWriter,
): { root: string; entries: Map<string, TreeEntry[]> } {
  const newTreeId = new Map<string, string>();
  const entries = new Map<string, TreeEntry[]>();
  const rewrite = (oid: string): string => {
    const known = newTreeId.get(oid);
    if (known) return known;
    let changed = false;
    const updated = (tree.trees.get(oid) ?? []).map((entry) => {
      const kind = entryKind(entry.mode);
      const mapped =
        kind === "tree"
          ? rewrite(entry.oid)
          : kind === "submodule"
            ? entry.oid
            : (newBlobId.get(entry.oid) ?? entry.oid);
      if (mapped !== entry.oid) changed = true;
      return mapped === entry.oid ? entry : { ...entry, oid: mapped };
    });
    const content = serializeTree(updated);
    const id = changed ? hashObject("tree", content) : oid;
    newTreeId.set(oid, id);
    entries.set(id, updated);
    pack.add(id, "tree", content);
    return id;
  };
  return { root: rewrite(tree.root), entries };
}

/** The index entries of the work tree (files with their work-tree sizes, then submodules). */
function indexEntries(tree: SourceTree, written: WrittenBlobs): IndexEntry[] {
  const entries: IndexEntry[] = tree.files.map((file) => ({
    path: file.path,
    mode: file.mode === "120000" ? 0o120000 : file.mode === "100755" ? 0o100755 : 0o100644,
    oid: written.newBlobId.get(file.oid) ?? file.oid,
    size: written.worktreeSizes.get(file) ?? written.sizes.get(file.oid) ?? 0,
  }));
  for (const submodule of tree.submodules)
    entries.push({ path: submodule.path, mode: 0o160000, oid: submodule.oid, size: 0 });
  return entries;
}

/** Writes `.git`: the pack, the index, HEAD, config and the one branch. */
async function writeGitDir(
  dir: string,
  pack: PackWriter,
  entries: IndexEntry[],
  commit: string,
): Promise<void> {
  const gitDir = join(dir, ".git");
  for (const sub of ["objects/pack", "objects/info", "refs/heads", "refs/tags"])
    await mkdir(join(gitDir, sub), { recursive: true });
  await pack.write(join(gitDir, "objects/pack"));
  await writeFile(join(gitDir, "index"), serializeIndex(entries, NEUTRAL_TIME));
  writeFileSync(join(gitDir, "HEAD"), `ref: refs/heads/${WORKSPACE_BRANCH}\n`);
  writeFileSync(join(gitDir, "config"), WORKSPACE_CONFIG);
  writeFileSync(join(gitDir, "refs/heads", WORKSPACE_BRANCH), `${commit}\n`);
}
