import { mkdir, readFile, statfs } from "node:fs/promises";
import { DistDebugError } from "@distdebug/schema";
import { findSystemTool } from "./internal/host.js";
import { runProcess } from "./internal/run-process.js";
import { tmpfsInodes } from "./internal/tmpfs-limits.js";

/**
 * How a folder's disk use is capped: `tmpfs` (a size-capped tmpfs mounted on it by root), or
 * `none` (not root, or mounting failed: only the per-file limit `fileSizeBytes` applies).
 */
export type DiskEnforcement = "tmpfs" | "none";

/** Free bytes under which a capped folder counts as full (a write failed with ENOSPC). */
const FULL_BELOW_BYTES = 1024 * 1024;

/** Options of {@link mountDiskBudget}. */
export interface MountDiskBudgetOptions {
  /** The folder to cap (created if missing; must be empty). */
  dir: string;
  /** Its size in bytes. */
  bytes: number;
}

/** A folder whose disk use is capped; see {@link mountDiskBudget}. */
export interface DiskBudget {
  readonly dir: string;
  readonly enforcement: DiskEnforcement;
  /**
   * Caps the folder at what it holds now plus `bytes` (the growth allowed from here), and its
   * files at those it holds now plus one per 16 KiB of `bytes`.
   */
  limitGrowth(bytes: number): Promise<void>;
  /** True when the folder is (nearly) full or out of inodes: a write past the budget failed. */
  exhausted(): Promise<boolean>;
  /** Unmounts the tmpfs (its content is gone); later calls do nothing. */
  release(): Promise<void>;
}

/**
 * Caps the disk use of a folder (an attempt's workspace, `/output`): as root, a tmpfs of
 * `bytes` is mounted on it (source `distdebug`, so `/proc/self/mountinfo` inside the sandbox
 * names no host path under it), with one inode per 16 KiB (empty files cost kernel memory
 * that no size cap counts). Writes and new files past the cap fail with ENOSPC and {@link
 * DiskBudget.exhausted} turns true. Not root, or when mounting fails (a container without
 * CAP_SYS_ADMIN): the folder is left as is, `enforcement` is `none`.
 *
 * @example
 * ```ts
 * const budget = await mountDiskBudget({ dir: "/tmp/attempt-1/output", bytes: 40 * 1024 * 1024 });
 * try { ... if (await budget.exhausted()) status = "limit-exceeded"; } finally { await budget.release(); }
 * ```
 */
export async function mountDiskBudget(options: MountDiskBudgetOptions): Promise<DiskBudget> {
  await mkdir(options.dir, { recursive: true });
  const mount = process.getuid?.() === 0 ? await findSystemTool("mount") : undefined;
  const mounted =
    mount !== undefined &&
    (await runTool(mount, [
      "-t",
      "tmpfs",
      "-o",
      `size=${options.bytes},nr_inodes=${tmpfsInodes(options.bytes)},mode=0755,nosuid,nodev`,
      "distdebug",
      options.dir,
    ])) === undefined;
  return mounted ? tmpfsBudget(options.dir, mount) : uncappedBudget(options.dir);
}

function uncappedBudget(dir: string): DiskBudget {
  return {
    dir,
    enforcement: "none",
    limitGrowth: async () => {},
    exhausted: async () => false,
    release: async () => {},
  };
}

function tmpfsBudget(dir: string, mount: string): DiskBudget {
  let released: Promise<void> | undefined;
  return {
    dir,
    enforcement: "tmpfs",
    async limitGrowth(bytes) {
      const info = await statfs(dir);
      const used = (info.blocks - info.bfree) * info.bsize;
      const inodes = info.files - info.ffree + tmpfsInodes(bytes);
      const failure = await runTool(mount, [
        "-o",
        `remount,size=${used + bytes},nr_inodes=${inodes}`,
        dir,
      ]);
      if (failure !== undefined)
        throw new DistDebugError({
          code: "SANDBOX_ERROR",
          message: `${dir}: cannot resize the disk budget's tmpfs: ${failure}`,
          data: { dir },
        });
    },
    async exhausted() {
      const info = await statfs(dir).catch(() => undefined);
      return (
        info !== undefined && (info.bavail * info.bsize < FULL_BELOW_BYTES || info.ffree === 0)
      );
    },
    release() {
      released ??= (async () => {
        const umount = await findSystemTool("umount");
        if (umount !== undefined) await runTool(umount, ["--lazy", dir]);
      })();
      return released;
    },
  };
}

/**
 * Unmounts the disk budgets left mounted at or below `dir` by a process that died before
 * releasing them (so the folder can be removed). Returns how many it unmounted.
 *
 * @example
 * ```ts
 * await unmountLeftoverDiskBudgets(deadAttemptWorkDir);
 * await rm(deadAttemptWorkDir, { recursive: true, force: true });
 * ```
 */
export async function unmountLeftoverDiskBudgets(dir: string): Promise<number> {
  const umount = process.getuid?.() === 0 ? await findSystemTool("umount") : undefined;
  if (umount === undefined) return 0;
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const points = mountinfo
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => {
      const tail = fields.slice(fields.indexOf("-") + 1);
      return tail[0] === "tmpfs" && tail[1] === "distdebug";
    })
    .map((fields) => (fields[4] ?? "").replace(/\\040/g, " "))
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((left, right) => right.length - left.length);
  for (const point of points) await runTool(umount, ["--lazy", point]);
  return points.length;
}

/** Runs a system tool; undefined when it succeeded, else its last stderr line. */
async function runTool(file: string, args: string[]): Promise<string | undefined> {
  const result = await runProcess({
    file,
    args,
    env: {},
    timeoutMs: 10_000,
    outputBytes: 8192,
    killOutputBytes: 65_536,
    statusFd: false,
  });
  if (result.exitCode === 0) return undefined;
  return result.stderr.text().trim().split("\n").pop() || `exit code ${result.exitCode}`;
}
