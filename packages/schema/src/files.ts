import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { constants, type FileHandle, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { DistDebugError } from "./errors.js";

/** Default size limit of a DistDebug file read by {@link readFileChecked}: 32 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;

/** Size limit of an agent's `diagnosis.json`, checked before it is read: 1 MiB. */
export const MAX_DIAGNOSIS_BYTES = 1024 * 1024;

/** Size limit of a `trajectory.json`, checked before it is read: 32 MiB. */
export const MAX_TRAJECTORY_BYTES = DEFAULT_MAX_FILE_BYTES;

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** Options of {@link readFileChecked}. */
export interface ReadFileOptions {
  /** Size limit, checked on the opened descriptor before reading. Default 32 MiB. */
  maxBytes?: number;
  /**
   * `false` for files an agent could have written: a symbolic link is refused (`O_NOFOLLOW`),
   * never followed. Default `true`.
   */
  followLinks?: boolean;
  /** The name used in messages instead of `path` (e.g. `/output/diagnosis.json`). */
  label?: string;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isSymbolicLink()) return "a symbolic link";
  if (info.isFIFO()) return "a FIFO";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  if (info.isSocket()) return "a socket";
  return "a special file";
}

function openError(error: unknown, name: string, path: string): DistDebugError {
  const code = (error as NodeJS.ErrnoException).code;
  const data = { path };
  if (code === "ENOENT" || code === "ENOTDIR")
    return new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `${name}: no such file`,
      data,
      cause: error,
    });
  const reason =
    code === "ELOOP"
      ? "is a symbolic link, not a file"
      : code === "ENXIO"
        ? "is a special file, not a file"
        : `cannot be read (${code ?? "error"})`;
  return new DistDebugError({
    code: "NOT_A_FILE",
    message: `${name}: ${reason}`,
    data,
    cause: error,
  });
}

/**
 * The one reader of files the harness does not trust: opens non-blocking (a FIFO or device is
 * never waited on), optionally without following a symbolic link, checks the opened
 * descriptor (a regular file, at most `maxBytes`) before reading, and never reads more than
 * `maxBytes` even from a file that grows meanwhile. Errors: `FILE_NOT_FOUND`, `NOT_A_FILE`
 * (a link, directory, FIFO, device or socket), `FILE_TOO_LARGE`; the message names the file.
 */
export async function readFileChecked(
  path: string,
  options: ReadFileOptions = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const name = options.label ?? path;
  const flags =
    constants.O_RDONLY |
    constants.O_NONBLOCK |
    (options.followLinks === false ? constants.O_NOFOLLOW : 0);
  let handle: FileHandle;
  try {
    handle = await open(path, flags);
  } catch (error) {
    throw openError(error, name, path);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new DistDebugError({
        code: "NOT_A_FILE",
        message: `${name}: is ${kindOf(info)}, not a file`,
        data: { path },
      });
    }
    const tooLarge = (bytes: number) =>
      new DistDebugError({
        code: "FILE_TOO_LARGE",
        message: `${name}: the file is ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} limit for DistDebug files`,
        data: { path, bytes, maxBytes },
      });
    if (info.size > maxBytes) throw tooLarge(info.size);
    // Read in chunks up to one byte past the limit: a file that grows meanwhile is still capped.
    const chunks: Buffer[] = [];
    let length = 0;
    while (length <= maxBytes) {
      const want = Math.max(info.size - length + 1, 64 * 1024);
      const chunk = Buffer.alloc(Math.min(want, maxBytes + 1 - length, 1 << 20));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
    }
    if (length > maxBytes) throw tooLarge(length);
    return Buffer.concat(chunks, length);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file atomically: the bytes go to a temporary file in the same folder, are flushed
 * to disk, and the temporary file is renamed over `path`. A reader sees the old file or the
 * new one, never half of either; a crash leaves at most a stray `.tmp-` file.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  const handle = await open(temp, "w");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const dirHandle = await open(dir, "r").catch(() => undefined);
  if (dirHandle) {
    await dirHandle.sync().catch(() => {});
    await dirHandle.close();
  }
}
