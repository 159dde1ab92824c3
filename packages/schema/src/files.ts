import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import {
  constants,
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
} from "node:fs/promises";
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
  const temp = tempSiblingPath(path, ".tmp-");
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

/**
 * A fresh name for a temporary sibling of `path` (same folder, so a rename onto `path` is
 * atomic): `.<name><tag><pid>-<8 hex digits>`. The process id lets a cleaner tell a dead
 * writer's leftovers from a live one's.
 *
 * @example
 * ```ts
 * tempSiblingPath("/cache/repos/a.git", ".tmp-"); // "/cache/repos/.a.git.tmp-4242-9f86d081"
 * ```
 */
export function tempSiblingPath(path: string, tag: string): string {
  return join(
    dirname(path),
    `.${basename(path)}${tag}${process.pid}-${randomBytes(4).toString("hex")}`,
  );
}

/**
 * The bytes of `path`, or `undefined` when it does not exist (any other error is thrown).
 *
 * @example
 * ```ts
 * const run = await readFileIfExists("results/baseline/run.json");
 * ```
 */
export async function readFileIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Options of {@link listFilesBelow}. */
export interface ListFilesOptions {
  /** Entries (by POSIX path relative to the root) to leave out; a folder left out is not entered. Default none. */
  skip?: (relativePath: string) => boolean;
  /** Also list entries that are neither folders nor regular files (links, FIFOs...). Default false. */
  allEntries?: boolean;
}

/**
 * The files below `dir`, as sorted POSIX paths relative to it; symbolic links are not followed.
 *
 * @example
 * ```ts
 * await listFilesBelow(repo, { skip: (path) => path === ".git" }); // ["README.md", "src/a.go"]
 * ```
 */
export async function listFilesBelow(
  dir: string,
  options: ListFilesOptions = {},
): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string, prefix: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (options.skip?.(relative)) continue;
      if (entry.isDirectory()) await walk(join(folder, entry.name), relative);
      else if (entry.isFile() || options.allEntries) out.push(relative);
    }
  };
  await walk(dir, "");
  return out.sort();
}
