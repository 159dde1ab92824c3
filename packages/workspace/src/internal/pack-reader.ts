import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { DistDebugError } from "@distdebug/schema";
import type { ObjectType } from "../git-objects.js";
import type { RawObject } from "./object-reader.js";

const typeNames: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface PackFile {
  path: string;
  fd: number;
  /** Sorted 20-byte ids, concatenated. */
  ids: Buffer;
  fanout: Uint32Array;
  /** Offset of the object with the same index in `ids`. */
  offsets: Float64Array;
  /** End of each object's bytes, by index (the next offset, or the trailer). */
  ends: Float64Array;
  /** End of the object at each offset (for bases found by offset). */
  endByOffset: Map<number, number>;
  count: number;
}

/** A base-object cache bounded by bytes (least recently used entries go first). */
class ByteLru {
  private readonly map = new Map<string, { type: ObjectType; content: Buffer }>();
  private bytes = 0;
  constructor(private readonly budget: number) {}
  get(key: string) {
    const value = this.map.get(key);
    if (value) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: { type: ObjectType; content: Buffer }) {
    if (value.content.length > this.budget / 4 || this.map.has(key)) return;
    this.map.set(key, value);
    this.bytes += value.content.length;
    for (const [oldKey, old] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(oldKey);
      this.bytes -= old.content.length;
    }
  }
}

/** A git pack (or pack index) that cannot be read as git writes them. */
function corruptPack(where: string, problem: string): never {
  throw new DistDebugError({
    code: "WORKSPACE_ERROR",
    message: `${where}: ${problem}; the git pack is corrupt or of an unsupported version: delete the repository (or its cache entry) and clone it again`,
    data: { file: where },
  });
}

function loadIndex(idxPath: string, packPath: string): PackFile {
  const idx = readFileSync(idxPath);
  if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2)
    corruptPack(idxPath, "not a version 2 pack index");
  const fanout = new Uint32Array(256);
  for (let i = 0; i < 256; i++) fanout[i] = idx.readUInt32BE(8 + i * 4);
  const count = fanout[255] ?? 0;
  const idsStart = 8 + 1024;
  const ids = idx.subarray(idsStart, idsStart + count * 20);
  const offsetsStart = idsStart + count * 24;
  const largeStart = offsetsStart + count * 4;
  const offsets = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const value = idx.readUInt32BE(offsetsStart + i * 4);
    offsets[i] =
      value & 0x80000000
        ? Number(idx.readBigUInt64BE(largeStart + (value & 0x7fffffff) * 8))
        : value;
  }
  const fd = openSync(packPath, "r");
  const sorted = Float64Array.from(offsets).sort();
  const { size } = fstatSync(fd);
  const endByOffset = new Map<number, number>();
  for (let i = 0; i < count; i++)
    endByOffset.set(sorted[i] ?? 0, i + 1 < count ? (sorted[i + 1] ?? 0) : size - 20);
  const ends = new Float64Array(count);
  for (let i = 0; i < count; i++) ends[i] = endByOffset.get(offsets[i] ?? 0) ?? 0;
  return { path: packPath, fd, ids, fanout, offsets, ends, endByOffset, count };
}

/**
 * A pure JavaScript reader of a git object store: version-2 pack indexes are searched
 * directly, each object is read with one positioned read, inflated with zlib and its delta
 * chain resolved through a byte-bounded cache of bases; loose objects are inflated from their
 * files. Returns undefined for an object it does not hold.
 */
export class PackReader {
  private readonly packs: PackFile[] = [];
  private readonly cache: ByteLru;

  constructor(
    private readonly gitdir: string,
    cacheBytes = 256 * 1024 * 1024,
  ) {
    this.cache = new ByteLru(cacheBytes);
    const packDir = join(gitdir, "objects", "pack");
    let names: string[] = [];
    try {
      names = readdirSync(packDir);
    } catch {
      // no packs
    }
    for (const name of names.sort()) {
      if (!name.endsWith(".idx")) continue;
      const pack = join(packDir, `${name.slice(0, -4)}.pack`);
      try {
        this.packs.push(loadIndex(join(packDir, name), pack));
      } catch {
        // An index without its pack (or another version) is left to isomorphic-git.
      }
    }
  }

  close(): void {
    for (const pack of this.packs) closeSync(pack.fd);
    this.packs.length = 0;
  }

  private find(oid: Buffer): { pack: PackFile; index: number } | undefined {
    const first = oid[0] ?? 0;
    for (const pack of this.packs) {
      let low = first === 0 ? 0 : (pack.fanout[first - 1] ?? 0);
      let high = pack.fanout[first] ?? 0;
      while (low < high) {
        const mid = (low + high) >>> 1;
        const cmp = pack.ids.compare(oid, 0, 20, mid * 20, mid * 20 + 20);
        if (cmp === 0) return { pack, index: mid };
        // cmp compares the stored id with the wanted one.
        if (cmp < 0) low = mid + 1;
        else high = mid;
      }
    }
    return undefined;
  }

  /**
   * Sorts ids into storage order (pack by pack, by offset; loose and unknown ids last, in
   * their given order). Reading in this order keeps delta bases hot in any reader's cache.
   */
  storageOrder(oids: readonly string[]): string[] {
    const keyed = oids.map((oid, index) => {
      const found = this.find(Buffer.from(oid, "hex"));
      const pack = found ? this.packs.indexOf(found.pack) : this.packs.length;
      const offset = found ? (found.pack.offsets[found.index] ?? 0) : index;
      return { oid, pack, offset };
    });
    keyed.sort((a, b) => a.pack - b.pack || a.offset - b.offset);
    return keyed.map((entry) => entry.oid);
  }

  /** Reads one object, or undefined when it is neither packed here nor loose. */
  read(oid: string): RawObject | undefined {
    const found = this.find(Buffer.from(oid, "hex"));
    if (found) {
      const object = this.readAt(
        found.pack,
        found.pack.offsets[found.index] ?? 0,
        found.pack.ends[found.index] ?? 0,
      );
      return { oid, type: object.type, content: object.content };
    }
    return this.readLoose(oid);
  }

  private readLoose(oid: string): RawObject | undefined {
    let raw: Buffer;
    try {
      raw = inflateSync(readFileSync(join(this.gitdir, "objects", oid.slice(0, 2), oid.slice(2))));
    } catch {
      return undefined;
    }
    const space = raw.indexOf(0x20);
    const nul = raw.indexOf(0, space);
    return {
      oid,
      type: raw.toString("latin1", 0, space) as ObjectType,
      content: raw.subarray(nul + 1),
    };
  }

  private readAt(
    pack: PackFile,
    offset: number,
    end: number,
  ): { type: ObjectType; content: Buffer } {
    const key = `${pack.path}:${offset}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const raw = Buffer.allocUnsafe(end - offset);
    readSync(pack.fd, raw, 0, raw.length, offset);
    let at = 0;
    let byte = raw[at++] ?? 0;
    const type = (byte >> 4) & 7;
    while (byte & 0x80) byte = raw[at++] ?? 0;
    let result: { type: ObjectType; content: Buffer };
    if (type === OFS_DELTA || type === REF_DELTA) {
      let base: { type: ObjectType; content: Buffer };
      if (type === OFS_DELTA) {
        byte = raw[at++] ?? 0;
        let distance = byte & 0x7f;
        while (byte & 0x80) {
          byte = raw[at++] ?? 0;
          distance = (distance + 1) * 128 + (byte & 0x7f);
        }
        const baseOffset = offset - distance;
        const baseEnd = pack.endByOffset.get(baseOffset);
        if (baseEnd === undefined) corruptPack(pack.path, `no object at offset ${baseOffset}`);
        base = this.readAt(pack, baseOffset, baseEnd);
        // A base is likely the base of the next object of its chain too.
        this.cache.set(`${pack.path}:${baseOffset}`, base);
      } else {
        const baseId = raw.toString("hex", at, at + 20);
        at += 20;
        const found = this.read(baseId);
        if (!found) corruptPack(pack.path, `delta base ${baseId} is missing`);
        base = found;
      }
      const delta = inflateSync(raw.subarray(at));
      result = { type: base.type, content: applyDelta(base.content, delta) };
    } else {
      const name = typeNames[type];
      if (!name) corruptPack(pack.path, `unknown object type ${type} at offset ${offset}`);
      result = { type: name, content: inflateSync(raw.subarray(at)) };
    }
    return result;
  }
}

function readSize(delta: Buffer, start: number): [number, number] {
  let at = start;
  let size = 0;
  let shift = 1;
  let byte: number;
  do {
    byte = delta[at++] ?? 0;
    size += (byte & 0x7f) * shift;
    shift *= 128;
  } while (byte & 0x80);
  return [size, at];
}

/** Applies a git delta to its base. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  const [baseSize, afterBase] = readSize(delta, 0);
  if (baseSize !== base.length)
    corruptPack("git delta", `expects a base of ${baseSize} bytes, found ${base.length}`);
  const [resultSize, afterResult] = readSize(delta, afterBase);
  let at = afterResult;
  const out = Buffer.allocUnsafe(resultSize);
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++] ?? 0;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset |= delta[at++] ?? 0;
      if (op & 0x02) offset |= (delta[at++] ?? 0) << 8;
      if (op & 0x04) offset |= (delta[at++] ?? 0) << 16;
      if (op & 0x08) offset += (delta[at++] ?? 0) * 0x1000000;
      if (op & 0x10) size |= delta[at++] ?? 0;
      if (op & 0x20) size |= (delta[at++] ?? 0) << 8;
      if (op & 0x40) size |= (delta[at++] ?? 0) << 16;
      if (size === 0) size = 0x10000;
      base.copy(out, written, offset, offset + size);
      written += size;
    } else if (op > 0) {
      delta.copy(out, written, at, at + op);
      written += op;
      at += op;
    } else corruptPack("git delta", "invalid opcode 0");
  }
  if (written !== resultSize)
    corruptPack("git delta", `produced ${written} bytes, expected ${resultSize}`);
  return out;
}

/** Every object id stored in a git folder (packs and loose), with the file holding it. */
export function listObjectIds(gitdir: string): { oid: string; file: string }[] {
  const out: { oid: string; file: string }[] = [];
  const objects = join(gitdir, "objects");
  let names: string[] = [];
  try {
    names = readdirSync(objects);
  } catch {
    return out;
  }
  for (const name of names) {
    if (/^[0-9a-f]{2}$/.test(name)) {
      for (const rest of readdirSync(join(objects, name)))
        if (/^[0-9a-f]{38}$/.test(rest))
          out.push({ oid: name + rest, file: join(objects, name, rest) });
    }
  }
  let packs: string[] = [];
  try {
    packs = readdirSync(join(objects, "pack"));
  } catch {
    return out;
  }
  for (const name of packs) {
    if (!name.endsWith(".idx")) continue;
    const idx = readFileSync(join(objects, "pack", name));
    if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) continue;
    const count = idx.readUInt32BE(8 + 255 * 4);
    const file = join(objects, "pack", `${name.slice(0, -4)}.pack`);
    for (let i = 0; i < count; i++)
      out.push({ oid: idx.toString("hex", 1032 + i * 20, 1052 + i * 20), file });
  }
  return out;
}
