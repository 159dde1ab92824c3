import { createHash } from "node:crypto";

/** One file of the work tree as the git index records it. */
export interface IndexEntry {
  /** POSIX path relative to the work tree, as bytes. */
  path: Buffer;
  /** Numeric mode: 0o100644, 0o100755, 0o120000 or 0o160000. */
  mode: number;
  oid: string;
  /** Size of the file (symlink: length of the target); 0 for submodules. */
  size: number;
}

/**
 * Serializes a version-2 git index. Stat fields are fixed: ctime, dev, inode, uid and gid are
 * zero and mtime is `mtimeSeconds`, so the bytes depend only on the tree; with
 * `core.checkStat = minimal` and `core.trustctime = false` git trusts entries whose file
 * mtime and size match, on any copy of the work tree made with timestamps preserved.
 */
export function serializeIndex(entries: readonly IndexEntry[], mtimeSeconds: number): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.path, b.path));
  const parts: Buffer[] = [];
  const head = Buffer.alloc(12);
  head.write("DIRC", 0, "latin1");
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(sorted.length, 8);
  parts.push(head);
  for (const entry of sorted) {
    const length = Math.ceil((62 + entry.path.length + 1) / 8) * 8;
    const out = Buffer.alloc(length);
    const submodule = entry.mode === 0o160000;
    out.writeUInt32BE(submodule ? 0 : mtimeSeconds, 8);
    out.writeUInt32BE(entry.mode, 24);
    out.writeUInt32BE(entry.size >>> 0, 36);
    out.write(entry.oid, 40, "hex");
    out.writeUInt16BE(Math.min(entry.path.length, 0xfff), 60);
    entry.path.copy(out, 62);
    parts.push(out);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}
