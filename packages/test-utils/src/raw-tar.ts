import { gzipSync } from "node:zlib";

/** One entry of a hand-made archive: any path, any type (an attacker's archive). */
export interface RawTarEntry {
  path: string;
  data?: Uint8Array;
  /** The ustar type flag: "0" file (default), "1" hard link, "2" symbolic link, "5" folder. */
  type?: string;
  linkName?: string;
}

const encoder = new TextEncoder();

function put(block: Uint8Array, offset: number, text: string): void {
  block.set(encoder.encode(text), offset);
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

/**
 * Writes an uncompressed ustar stream with no checks at all, so tests can make the archives
 * an attacker would: `..`, absolute and alias paths, links, duplicates, pax headers (type `x`,
 * see {@link paxRecords}), and with `end: false` no end-of-archive blocks (to splice streams).
 */
export function rawTar(entries: readonly RawTarEntry[], options: { end?: boolean } = {}): Buffer {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = entry.data ?? new Uint8Array();
    const block = new Uint8Array(512);
    put(block, 0, entry.path.slice(0, 100));
    put(block, 100, octal(0o644, 8));
    put(block, 108, octal(0, 8));
    put(block, 116, octal(0, 8));
    put(block, 124, octal(data.length, 12));
    put(block, 136, octal(0, 12));
    block.fill(0x20, 148, 156);
    put(block, 156, entry.type ?? "0");
    put(block, 157, (entry.linkName ?? "").slice(0, 100));
    put(block, 257, "ustar\0");
    put(block, 263, "00");
    let sum = 0;
    for (const byte of block) sum += byte;
    put(block, 148, `${sum.toString(8).padStart(6, "0")}\0 `);
    parts.push(block, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  if (options.end ?? true) parts.push(new Uint8Array(1024));
  return Buffer.concat(parts);
}

/** {@link rawTar}, gzip-compressed. */
export function rawTarGz(entries: readonly RawTarEntry[]): Buffer {
  return gzipSync(rawTar(entries));
}

/** The data of a pax header (type `x`) holding `records` (`"size"`, `"path"`, ...) as tar writes them. */
export function paxRecords(records: Record<string, string | number>): Uint8Array {
  let text = "";
  for (const [key, value] of Object.entries(records)) {
    const body = ` ${key}=${value}\n`;
    const bytes = Buffer.byteLength(body);
    let length = bytes;
    while (String(length).length + bytes !== length) length = String(length).length + bytes;
    text += `${length}${body}`;
  }
  return encoder.encode(text);
}
