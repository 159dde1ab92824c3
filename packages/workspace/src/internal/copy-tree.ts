import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  futimesSync,
  lchownSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  type Stats,
  symlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { lchown, readdir } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError } from "@distdebug/schema";

/** Who should own a copied tree (applied with lchown; needs the privilege to do so). */
export interface Owner {
  uid: number;
  gid: number;
}

/** The digest of a tree: every entry's path, kind, mode, size, link target and contents. */
export interface WalkResult {
  /**
   * SHA-256 over one line per entry (kind, mode, size, path, link target; a regular file's
   * line starts with the SHA-256 of its contents), in path order.
   */
  contentDigest: string;
  entries: number;
  bytes: number;
}

/** What {@link copyTreeSync} does besides copying. */
export interface CopyTreeOptions {
  /** lchown every entry of the copy to this user and group. Default: unchanged. */
  owner?: Owner | undefined;
  /** The atime and mtime of every entry of the copy, in seconds. */
  time: number;
  signal?: AbortSignal | undefined;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "d";
  if (stats.isSymbolicLink()) return "l";
  return stats.isFile() ? "f" : "o";
}

function manifestLine(rel: string, stats: Stats, link: string | undefined): string {
  const size = stats.isDirectory() ? 0 : stats.size;
  return `${kindOf(stats)} ${(stats.mode & 0o7777).toString(8)} ${size} ${JSON.stringify(rel)} ${link ?? ""}\n`;
}

/** Collects one line per entry (a file's with the hash of its contents) and hashes them in path order. */
class TreeDigest {
  readonly #lines: [manifest: string, content: string][] = [];
  bytes = 0;

  add(rel: string, stats: Stats, link: string | undefined, contents?: Buffer): void {
    const line = manifestLine(rel, stats, link);
    if (contents === undefined) {
      this.#lines.push([line, line]);
      return;
    }
    this.bytes += contents.length;
    const hash = createHash("sha256").update(contents).digest("hex");
    this.#lines.push([line, `${hash} ${line}`]);
  }

  result(): WalkResult {
    this.#lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const content = createHash("sha256");
    for (const [, withHash] of this.#lines) content.update(withHash);
    return {
      contentDigest: content.digest("hex"),
      entries: this.#lines.length,
      bytes: this.bytes,
    };
  }
}

/** Reads a regular file without following a link put in its place since it was listed. */
function readRegularFile(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile())
      throw new DistDebugError({
        code: "CACHE_CORRUPT",
        message: `${path} changed from a file to something else while it was copied`,
        data: { path },
      });
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Copies `source` to a new folder `target` in one pass, in path order (folders before their
 * contents, names sorted): every file is read once, hashed and written from the same bytes, so
 * the returned `contentDigest` is that of the copy as written, not of the source at some other
 * moment. Modes and symlinks are kept (no hard links to the source); every time is set to
 * `time`. Other kinds of entries (FIFOs, devices) are not copied but named in the digest, so
 * a source holding one never matches a digest recorded for a tree built by `materialize`.
 */
export function copyTreeSync(source: string, target: string, options: CopyTreeOptions): WalkResult {
  const digest = new TreeDigest();
  const { owner, time } = options;
  const visit = (rel: string, stats: Stats): void => {
    if (options.signal?.aborted)
      throw new DistDebugError({ code: "ABORTED", message: "the tree copy was aborted" });
    const from = rel === "" ? source : join(source, rel);
    const to = rel === "" ? target : join(target, rel);
    if (rel !== "" && !stats.isDirectory() && !stats.isSymbolicLink() && !stats.isFile()) {
      digest.add(rel, stats, undefined);
      return;
    }
    if (stats.isDirectory()) {
      if (rel !== "") digest.add(rel, stats, undefined);
      mkdirSync(to);
      for (const name of readdirSync(from).sort()) {
        const childRel = rel === "" ? name : `${rel}/${name}`;
        visit(childRel, lstatSync(join(source, childRel)));
      }
      if (owner) lchownSync(to, owner.uid, owner.gid);
      // Last: mode and times after the contents (a folder without write permission is
      // filled first; writing into a folder moves its mtime).
      chmodSync(to, stats.mode & 0o7777);
      utimesSync(to, time, time);
    } else if (stats.isSymbolicLink()) {
      const link = readlinkSync(from);
      digest.add(rel, stats, link);
      symlinkSync(link, to);
      if (owner) lchownSync(to, owner.uid, owner.gid);
      lutimesSync(to, time, time);
    } else {
      const contents = readRegularFile(from);
      digest.add(rel, stats, undefined, contents);
      writeFileOnce(to, contents, stats, options);
    }
  };
  const rootStats = lstatSync(source);
  if (!rootStats.isDirectory())
    throw new DistDebugError({
      code: "CACHE_CORRUPT",
      message: `${source} is not a folder`,
      data: { path: source },
    });
  visit("", rootStats);
  return digest.result();
}

/** Creates `path` (never an existing one), writes `contents`, sets mode, owner and times. */
function writeFileOnce(
  path: string,
  contents: Buffer,
  stats: Stats,
  { owner, time }: CopyTreeOptions,
): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    for (let at = 0; at < contents.length; )
      at += writeSync(fd, contents, at, contents.length - at);
    fchmodSync(fd, stats.mode & 0o7777);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    futimesSync(fd, time, time);
  } finally {
    closeSync(fd);
  }
}

/** lchowns every entry below and including `root`. */
export async function chownTree(root: string, owner: Owner): Promise<void> {
  await lchown(root, owner.uid, owner.gid);
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  await Promise.all(
    entries.map((entry) => lchown(join(entry.parentPath, entry.name), owner.uid, owner.gid)),
  );
}

/** The digest of {@link copyTreeSync}, of a tree read in place (every file's contents read once). */
export function digestTreeSync(source: string): WalkResult {
  const digest = new TreeDigest();
  const visit = (rel: string) => {
    const dir = rel === "" ? source : join(source, rel);
    for (const name of readdirSync(dir)) {
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const path = join(source, childRel);
      const stats = lstatSync(path);
      if (stats.isDirectory()) {
        digest.add(childRel, stats, undefined);
        visit(childRel);
      } else if (stats.isSymbolicLink()) digest.add(childRel, stats, readlinkSync(path));
      else if (stats.isFile()) digest.add(childRel, stats, undefined, readRegularFile(path));
      else digest.add(childRel, stats, undefined);
    }
  };
  visit("");
  return digest.result();
}
