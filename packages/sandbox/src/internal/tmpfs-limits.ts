/**
 * Limits of the memory no process maps (THREATS.md, section 5): files in the sandbox's tmpfs
 * mounts and open descriptors. One place for the sandbox's mounts and the disk budgets.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** RLIMIT_NOFILE of every sandboxed process: what a shell, a JVM or a build tool opens, not more. */
export const OPEN_FILES_LIMIT = 4096;

/** Size of the sandbox's `/dev/shm` (POSIX shared memory), a tmpfs of its own. */
export const DEV_SHM_BYTES = 64 * MiB;

/** One inode per this many bytes of a tmpfs (an empty file costs about 1 KiB of kernel memory). */
const BYTES_PER_INODE = 16 * KiB;

/** At least this many inodes in any tmpfs of the sandbox. */
const MIN_INODES = 1024;

/**
 * The `nr_inodes` of a tmpfs of `bytes`: one per 16 KiB, at least 1,024. Without it a tmpfs
 * holds as many empty files as half the host's memory pages, and their inodes cost kernel
 * memory that no size cap and no process's memory counts.
 *
 * @example
 * ```ts
 * tmpfsInodes(512 * 1024 * 1024); // 32768
 * ```
 */
export function tmpfsInodes(bytes: number): number {
  return Math.max(MIN_INODES, Math.ceil(bytes / BYTES_PER_INODE));
}
