import { createHash } from "node:crypto";
import { open, rename } from "node:fs/promises";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import type { ObjectType } from "../git-objects.js";

const typeNumbers: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

interface PackedEntry {
  oid: string;
  header: Buffer;
  body: Buffer;
}

function entryHeader(type: ObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (typeNumbers[type] << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/**
 * Collects objects (each compressed as it is added) and writes them as one version-2 pack with
 * its version-2 index. The result depends only on the objects and their order. Compression is
 * synchronous: one zlib stream per object in the thread pool cost about three times the CPU
 * (stream set-up, page faults of hundreds of live zlib states) and held far more memory;
 * callers overlap it with file writes, which do run in the thread pool.
 */
export class PackWriter {
  private readonly entries: PackedEntry[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly level: number) {}

  /** Number of distinct objects added. */
  get count(): number {
    return this.entries.length;
  }

  has(oid: string): boolean {
    return this.seen.has(oid);
  }

  /** Adds an object once (a repeated id is ignored), compressing it now. */
  add(oid: string, type: ObjectType, content: Buffer): void {
    if (this.seen.has(oid)) return;
    this.seen.add(oid);
    this.entries.push({
      oid,
      header: entryHeader(type, content.length),
      body: deflateSync(content, { level: this.level }),
    });
  }

  /**
   * Puts the objects in the given order (ids not in it last, by id): a pack's object order is
   * visible to anyone who reads it (`git verify-pack -v`), so it must say nothing the order
   * does not. Returns this writer.
   */
  ordered(order: readonly string[]): this {
    const rank = new Map(order.map((oid, index) => [oid, index]));
    const key = (entry: PackedEntry) => rank.get(entry.oid) ?? order.length;
    this.entries.sort((a, b) => key(a) - key(b) || (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
    return this;
  }

  /** Writes `pack-<id>.pack` and `pack-<id>.idx` into `packDir`; returns the pack id. */
  async write(packDir: string): Promise<string> {
    const { entries } = this;
    const packHash = createHash("sha1");
    const head = Buffer.alloc(12);
    head.write("PACK", 0, "latin1");
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(entries.length, 8);
    packHash.update(head);
    const offsets = new Map<string, { offset: number; crc: number }>();
    let offset = 12;
    for (const entry of entries) {
      packHash.update(entry.header);
      packHash.update(entry.body);
      offsets.set(entry.oid, {
        offset,
        crc: crc32(entry.body, crc32(entry.header)),
      });
      offset += entry.header.length + entry.body.length;
    }
    const packId = packHash.digest();
    const name = `pack-${packId.toString("hex")}`;
    const tempPack = join(packDir, `tmp_${name}.pack`);
    const handle = await open(tempPack, "w", 0o444);
    try {
      const buffers: Buffer[] = [head];
      for (const entry of entries) buffers.push(entry.header, entry.body);
      buffers.push(packId);
      // writev takes at most IOV_MAX buffers at a time.
      for (let at = 0; at < buffers.length; at += 1024)
        await handle.writev(buffers.slice(at, at + 1024) as NodeJS.ArrayBufferView[]);
    } finally {
      await handle.close();
    }
    const idx = buildIndex(offsets, packId);
    const idxHandle = await open(join(packDir, `${name}.idx`), "w", 0o444);
    try {
      await idxHandle.writeFile(idx);
    } finally {
      await idxHandle.close();
    }
    await rename(tempPack, join(packDir, `${name}.pack`));
    return packId.toString("hex");
  }
}

function buildIndex(offsets: Map<string, { offset: number; crc: number }>, packId: Buffer): Buffer {
  const oids = [...offsets.keys()].sort();
  const n = oids.length;
  const large = oids.filter((oid) => (offsets.get(oid)?.offset ?? 0) >= 0x80000000);
  const size = 8 + 256 * 4 + n * 20 + n * 4 + n * 4 + large.length * 8 + 40;
  const out = Buffer.alloc(size);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const oid of oids) {
    const bucket = Number.parseInt(oid.slice(0, 2), 16);
    fanout[bucket] = (fanout[bucket] ?? 0) + 1;
  }
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += fanout[i] ?? 0;
    out.writeUInt32BE(running, 8 + i * 4);
  }
  let at = 8 + 1024;
  for (const oid of oids) {
    out.write(oid, at, "hex");
    at += 20;
  }
  for (const oid of oids) {
    out.writeUInt32BE((offsets.get(oid)?.crc ?? 0) >>> 0, at);
    at += 4;
  }
  let largeIndex = 0;
  const largeStart = at + n * 4;
  for (const oid of oids) {
    const offset = offsets.get(oid)?.offset ?? 0;
    if (offset >= 0x80000000) {
      out.writeUInt32BE((0x80000000 | largeIndex) >>> 0, at);
      out.writeBigUInt64BE(BigInt(offset), largeStart + largeIndex * 8);
      largeIndex++;
    } else out.writeUInt32BE(offset, at);
    at += 4;
  }
  at = largeStart + large.length * 8;
  packId.copy(out, at);
  at += 20;
  createHash("sha1").update(out.subarray(0, at)).digest().copy(out, at);
  return out;
}
