import { createReadStream } from "node:fs";
import { createGunzip, gunzipSync, gzipSync } from "node:zlib";
import { DistDebugError, errorMessage } from "@distdebug/schema";
import {
  type ArchiveLayout,
  BLOCK,
  checkPath,
  fileForFolder,
  type TarEntry,
  TarReader,
} from "./internal/tar-reader.js";

export type { ArchiveLayout, TarEntry };

const encoder = new TextEncoder();

/** Default cap on the uncompressed size of an archive read by {@link readTarGz}: 1 GiB. */
export const DEFAULT_MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

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

/** Options of {@link readTarGz} and {@link readTarGzFile}. */
export interface ReadTarOptions {
  /** The archive's name in messages. Default `"archive"`. */
  source?: string;
  /** Most uncompressed bytes in all. Default `DEFAULT_MAX_ARCHIVE_BYTES` (1 GiB). */
  maxBytes?: number;
  /**
   * Which paths may be files or folders and the size limit of each file, checked on its header
   * before its data is inflated. Default: any safe path, up to `maxBytes`.
   */
  layout?: ArchiveLayout;
}

function readerOf(options: ReadTarOptions): TarReader {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ARCHIVE_BYTES;
  return new TarReader({
    source: options.source ?? "archive",
    maxBytes,
    layout: options.layout ?? { fileLimit: () => maxBytes, isFolder: () => true },
  });
}

/** An error of reading an archive as thrown: the reader's own, or gzip's named as not gzip. */
function gzipError(source: string, error: unknown): unknown {
  return DistDebugError.isInstance(error)
    ? error
    : new DistDebugError({
        code: "INVALID_ARCHIVE",
        message: `${source}: not a gzip-compressed archive (${errorMessage(error)})`,
        data: { source },
        cause: error,
      });
}

/**
 * Reads a gzip-compressed POSIX ustar archive (as {@link writeTarGz} makes) into its regular
 * files, refusing with `INVALID_ARCHIVE` naming the archive anything a standard `tar -x` could
 * extract otherwise than this reader reads it, or that is not a plain file at a safe path:
 * links, devices, GNU long names (`L`, `K`), sparse files, global (`g`) pax headers, pax
 * records other than `path` (such as `size`), GNU or v7 headers, data after the end-of-archive
 * block but zeros, absolute paths, `..` segments, aliases, control characters, duplicate paths,
 * bad checksums, files outside `options.layout` or over its size limits, and archives over
 * `maxBytes` (default 1 GiB) uncompressed. Folder entries are skipped.
 * Inflates everything at once: for a file on disk, {@link readTarGzFile} streams.
 *
 * @example
 * ```ts
 * const files = readTarGz(await readFile("submission.tar.gz"), { source: "submission.tar.gz" });
 * ```
 */
export function readTarGz(bytes: Uint8Array, options: ReadTarOptions = {}): TarEntry[] {
  const source = options.source ?? "archive";
  const reader = readerOf(options);
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: options.maxBytes ?? DEFAULT_MAX_ARCHIVE_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new DistDebugError({
        code: "INVALID_ARCHIVE",
        message: `${source}: larger than the limit once uncompressed`,
        data: { source },
      });
    throw gzipError(source, error);
  }
  reader.push(tar);
  return reader.finish();
}

/**
 * Reads a `.tar.gz` file like {@link readTarGz}, streaming: each header is checked (path,
 * layout, size limit) before its data is inflated, so memory holds the accepted files only.
 *
 * @example
 * ```ts
 * const files = await readTarGzFile("submission.tar.gz", { layout: SUBMISSION_LAYOUT });
 * ```
 */
export async function readTarGzFile(
  path: string,
  options: ReadTarOptions & { signal?: AbortSignal } = {},
): Promise<TarEntry[]> {
  const source = options.source ?? path;
  const reader = readerOf({ ...options, source });
  const gunzip = createGunzip();
  const input = createReadStream(path);
  input.on("error", (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) {
      options.signal?.throwIfAborted();
      reader.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new DistDebugError({
        code: "FILE_NOT_FOUND",
        message: `${source}: no such file`,
        data: { path },
      });
    throw gzipError(source, error);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  return reader.finish();
}
