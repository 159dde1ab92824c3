import { gunzipSync, gzipSync } from "node:zlib";
import { DistDebugError, errorMessage } from "@distdebug/schema";

/** One regular file of a tar archive. */
export interface TarEntry {
  /** Relative POSIX path, without `..` segments. */
  path: string;
  data: Uint8Array;
}

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Default cap on the uncompressed size of an archive read by {@link readTarGz}: 1 GiB. */
export const DEFAULT_MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

function invalid(source: string, detail: string): never {
  throw new DistDebugError({
    code: "INVALID_ARCHIVE",
    message: `${source}: ${detail}`,
    data: { source },
  });
}

/** Checks that `path` is a safe relative archive path; returns it or a reason. */
function checkPath(path: string): string | undefined {
  if (path === "" || path.startsWith("/")) return "an absolute or empty path";
  const parts = path.split("/");
  if (parts.includes("..")) return "a path with .. that climbs out of the archive";
  if (parts.some((part) => part === "" || part === "."))
    return "an alias path (an empty or . segment such as a//b or a/./b)";
  if (path.includes("\\") || path.includes("\0")) return "a path with a backslash or NUL";
  return undefined;
}

function writeString(header: Uint8Array, offset: number, length: number, text: string): void {
  const bytes = encoder.encode(text);
  if (bytes.length > length)
    throw new DistDebugError({
      code: "INVALID_ARCHIVE",
      message: `cannot write the tar header field ${JSON.stringify(text)}: it is ${bytes.length} bytes, at most ${length} fit; use a shorter path`,
      data: { text, length },
    });
  header.set(bytes, offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

function splitName(path: string): { name: string; prefix: string } {
  if (encoder.encode(path).length <= 100) return { name: path, prefix: "" };
  for (let cut = path.lastIndexOf("/"); cut > 0; cut = path.lastIndexOf("/", cut - 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100)
      return { name, prefix };
  }
  throw new DistDebugError({
    code: "INVALID_ARGUMENT",
    message: `${path}: too long for a tar archive (ustar names are at most 255 bytes)`,
  });
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const { name, prefix } = splitName(path);
  writeString(block, 0, 100, name);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.fill(0x20, 148, 156);
  block[156] = 0x30; // "0": regular file
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  writeString(block, 345, 155, prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/**
 * Writes regular files as a gzip-compressed ustar archive, in the order given. Reproducible:
 * owner 0, mode 644, mtime 0, so the same files give the same bytes.
 *
 * @example
 * ```ts
 * const bytes = writeTarGz([{ path: "manifest.json", data: new TextEncoder().encode("{}") }]);
 * ```
 */
export function writeTarGz(entries: readonly TarEntry[]): Buffer {
  const parts: Uint8Array[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const reason = checkPath(entry.path);
    if (reason)
      throw new DistDebugError({ code: "INVALID_ARGUMENT", message: `${entry.path}: ${reason}` });
    if (seen.has(entry.path))
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${entry.path}: twice in the archive`,
      });
    seen.add(entry.path);
    parts.push(header(entry.path, entry.data.length), entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(new Uint8Array(pad));
  }
  const conflict = fileForFolder(seen);
  if (conflict) throw new DistDebugError({ code: "INVALID_ARGUMENT", message: conflict });
  parts.push(new Uint8Array(BLOCK * 2));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

function readString(block: Uint8Array, offset: number, length: number): string {
  const slice = block.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return decoder.decode(end === -1 ? slice : slice.subarray(0, end));
}

function readOctal(block: Uint8Array, offset: number, length: number): number {
  const text = readString(block, offset, length).trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function paxPath(data: Uint8Array): string | undefined {
  const text = decoder.decode(data);
  let path: string | undefined;
  let position = 0;
  while (position < text.length) {
    const space = text.indexOf(" ", position);
    if (space === -1) break;
    const length = Number(text.slice(position, space));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = text.slice(space + 1, position + length - 1);
    const equals = record.indexOf("=");
    if (record.slice(0, equals) === "path") path = record.slice(equals + 1);
    position += length;
  }
  return path;
}

/**
 * Reads a gzip-compressed tar archive (ustar, GNU or pax) into its regular files. Directory
 * entries are skipped; links, devices, absolute paths, `..` segments, duplicate paths, bad
 * header checksums and archives over `maxBytes` uncompressed (default 1 GiB) are refused with
 * `INVALID_ARCHIVE` naming the archive.
 *
 * @example
 * ```ts
 * const files = readTarGz(await readFile("submission.tar.gz"), { source: "submission.tar.gz" });
 * ```
 */
export function readTarGz(
  bytes: Uint8Array,
  options: { source?: string; maxBytes?: number } = {},
): TarEntry[] {
  const source = options.source ?? "archive";
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: options.maxBytes ?? DEFAULT_MAX_ARCHIVE_BYTES });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    invalid(
      source,
      code === "ERR_BUFFER_TOO_LARGE"
        ? "larger than the limit once uncompressed"
        : `not a gzip-compressed archive (${errorMessage(error)})`,
    );
  }
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let pendingPath: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    let sum = 0;
    for (let index = 0; index < BLOCK; index++)
      sum += index >= 148 && index < 156 ? 0x20 : block[index]!;
    if (sum !== readOctal(block, 148, 8))
      invalid(source, `a tar header at byte ${offset} has a bad checksum`);
    const size = readOctal(block, 124, 12);
    const type = String.fromCharCode(block[156] ?? 0);
    const start = offset + BLOCK;
    if (start + size > tar.length)
      invalid(source, `the archive is cut short at byte ${tar.length}`);
    const data = tar.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    const prefix = readString(block, 345, 155);
    const name = readString(block, 0, 100);
    let path = pendingPath ?? (prefix ? `${prefix}/${name}` : name);
    if (type === "x") {
      pendingPath = paxPath(data);
      continue;
    }
    if (type === "L") {
      pendingPath = readString(data, 0, data.length);
      continue;
    }
    pendingPath = undefined;
    if (type === "g") continue;
    if (path.startsWith("./")) path = path.slice(2);
    if (type === "5" || path === "" || path === ".") continue;
    if (type !== "0" && type !== "\0" && type !== "7")
      invalid(source, `${path}: ${entryKind(type)}; only regular files are allowed`);
    const reason = checkPath(path);
    if (reason) invalid(source, `${path}: ${reason}`);
    if (seen.has(path)) invalid(source, `${path}: twice in the archive`);
    seen.add(path);
    entries.push({ path, data: Uint8Array.from(data) });
  }
  const conflict = fileForFolder(seen);
  if (conflict) invalid(source, conflict);
  return entries;
}

function entryKind(type: string): string {
  const kind = type === "1" ? "a hard link" : type === "2" ? "a symbolic link" : "a special entry";
  return `${kind} (tar entry of type ${JSON.stringify(type)})`;
}

/** A file whose path is also a folder of another file (`a` and `a/b`): the reason, or undefined. */
function fileForFolder(paths: ReadonlySet<string>): string | undefined {
  for (const path of paths) {
    for (let cut = path.indexOf("/"); cut !== -1; cut = path.indexOf("/", cut + 1)) {
      const folder = path.slice(0, cut);
      if (paths.has(folder))
        return `${path}: expects ${folder} to be a folder, but ${folder} is a file of the archive`;
    }
  }
  return undefined;
}
