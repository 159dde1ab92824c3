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
  readlinkSync,
  readSync,
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

  /** One entry; a regular file with the SHA-256 of its contents (hex) and their length. */
  add(
    rel: string,
    stats: Stats,
    link: string | undefined,
    contents?: { hash: string; bytes: number },
  ): void {
    const line = manifestLine(rel, stats, link);
    if (contents === undefined) {
      this.#lines.push([line, line]);
      return;
    }
    this.bytes += contents.bytes;
    this.#lines.push([line, `${contents.hash} ${line}`]);
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

/** Bytes read and written at a time: one buffer for the whole copy, whatever the file sizes. */
const CHUNK_BYTES = 1 << 20;

/** Opens a regular file without following a link put in its place since it was listed. */
function openRegularFile(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new DistDebugError({
      code: "CACHE_CORRUPT",
      message: `${path} changed from a file to something else while it was read`,
      data: { path },
    });
  }
  return fd;
}

/**
 * Reads the regular file `path` to its end in chunks, hashing each chunk and handing it to
 * `sink` (which writes it) before the next is read: what is hashed is what is written.
 */
function streamFile(
  path: string,
  buffer: Buffer,
  sink?: (chunk: Buffer) => void,
): { hash: string; bytes: number } {
  const fd = openRegularFile(path);
  try {
    const hash = createHash("sha256");
    let bytes = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      const chunk = buffer.subarray(0, read);
      hash.update(chunk);
      sink?.(chunk);
      bytes += read;
    }
    return { hash: hash.digest("hex"), bytes };
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
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
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
      digest.add(rel, stats, undefined, copyFileOnce(from, to, buffer, stats, options));
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

/** Creates `to` (never an existing one) from `from` in chunks; sets mode, owner and times. */
function copyFileOnce(
  from: string,
  to: string,
  buffer: Buffer,
  stats: Stats,
  { owner, time }: CopyTreeOptions,
): { hash: string; bytes: number } {
  const fd = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    const copied = streamFile(from, buffer, (chunk) => {
      for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
    });
    fchmodSync(fd, stats.mode & 0o7777);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    futimesSync(fd, time, time);
    return copied;
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
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
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
      else if (stats.isFile()) digest.add(childRel, stats, undefined, streamFile(path, buffer));
      else digest.add(childRel, stats, undefined);
    }
  };
  visit("");
  return digest.result();
}
