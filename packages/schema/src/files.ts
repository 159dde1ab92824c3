import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { DistDebugError } from "./errors.js";

/** Default size limit of a DistDebug file read by {@link readFileChecked}: 32 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * Reads a file's bytes with clear errors: `FILE_NOT_FOUND`, `NOT_A_FILE` (a directory),
 * `FILE_TOO_LARGE` (over `maxBytes`, default 32 MiB). The message names the path.
 */
export async function readFileChecked(
  path: string,
  options: { maxBytes?: number } = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DistDebugError({
      code: code === "ENOENT" || code === "ENOTDIR" ? "FILE_NOT_FOUND" : "NOT_A_FILE",
      message:
        code === "ENOENT" || code === "ENOTDIR"
          ? `${path}: no such file`
          : `${path}: cannot be read (${code ?? "error"})`,
      data: { path },
      cause: error,
    });
  }
  if (!info.isFile()) {
    throw new DistDebugError({
      code: "NOT_A_FILE",
      message: `${path}: is a ${info.isDirectory() ? "directory" : "special file"}, not a file`,
      data: { path },
    });
  }
  if (info.size > maxBytes) {
    throw new DistDebugError({
      code: "FILE_TOO_LARGE",
      message: `${path}: the file is ${formatBytes(info.size)}, over the ${formatBytes(maxBytes)} limit for DistDebug files`,
      data: { path, bytes: info.size, maxBytes },
    });
  }
  return readFile(path);
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
