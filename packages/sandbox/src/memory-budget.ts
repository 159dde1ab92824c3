import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { ResourceEnforcement } from "@distdebug/schema";
import { findOwnCgroupDir, readCounter, readWords } from "./internal/cgroup-v2.js";
import { MEMORY_SAMPLE_MS, watchUidMemory } from "./internal/memory-sampler.js";
import { killAll } from "./internal/uid-memory.js";

/**
 * How an attempt's memory is bounded: `cgroup-v2` (a total for all its processes, in a cgroup
 * of its own under a delegated cgroup v2, enforced by the kernel), `sampled-total` (as root
 * without such a cgroup: the memory of all the processes of the attempt's own uid is summed
 * every {@link MEMORY_SAMPLE_MS} ms and they are killed when it is over the budget), or
 * `rlimit-per-process` (RLIMIT_AS of each process only: ten processes may use ten times the
 * limit).
 */
export type MemoryEnforcement = ResourceEnforcement["memory"];

/** Options of {@link createMemoryBudget}. */
export interface CreateMemoryBudgetOptions {
  /** The attempt's total memory in bytes (`memory.max`; swap is not allowed on top). */
  bytes: number;
  /**
   * The cgroup v2 folder the attempt's cgroup is created in. Default: the environment variable
   * `DISTDEBUG_CGROUP_PARENT`, else this process's own cgroup.
   */
  parent?: string;
  /**
   * The attempt's own uid (a `leaseSandboxUser` lease; no other process may run as it). As
   * root without a usable cgroup, the memory of this uid's processes is sampled instead.
   */
  uid?: number;
}

export { MEMORY_SAMPLE_MS };

/** An attempt's memory bound; see {@link createMemoryBudget}. */
export interface MemoryBudget {
  readonly enforcement: MemoryEnforcement;
  /** `cgroup-v2`: the attempt's cgroup folder; commands join it by writing `cgroup.procs`. */
  readonly dir?: string;
  /** `sampled-total` and `rlimit-per-process`: why no cgroup could be used. */
  readonly reason?: string;
  /** How many processes were killed (by the kernel, or by the sampler) because the attempt used its whole budget. */
  oomKills(): Promise<number>;
  /** Kills what is left in the cgroup and removes it; later calls do nothing. */
  release(): Promise<void>;
}

/** Whether a cgroup v2 with a memory controller can hold attempts here; see {@link findMemoryCgroup}. */
export type MemoryCgroupSupport = { parent: string } | { reason: string };

/**
 * Gives an attempt a total memory budget: where this process may use the cgroup v2 memory
 * controller (a delegated cgroup, as `systemd-run --user --scope -p Delegate=yes` gives, or
 * root on a cgroup v2 host), a cgroup of its own with `memory.max` = `bytes`, no swap, and
 * `memory.oom.group` (a budget overrun ends all the attempt's processes, never one at random).
 * Commands of a sandbox created with it join the cgroup before bubblewrap starts, so every
 * process of the attempt counts, page cache and tmpfs pages included. When no controller is
 * usable (cgroup v1 hosts, no delegation) the budget's `reason` says why; then, as root with
 * the attempt's own `uid`, the budget is `sampled-total` (that uid's memory summed every
 * {@link MEMORY_SAMPLE_MS} ms, its processes killed past `bytes`), else only the per-process
 * RLIMIT_AS of the policy applies. If the cgroup holding this process has other processes,
 * this process moves into a leaf `distdebug-host` first (cgroup v2 allows controllers only on
 * cgroups without processes of their own).
 *
 * @example
 * ```ts
 * const memory = await createMemoryBudget({ bytes: 4 * 1024 ** 3 });
 * const sandbox = await createSandbox({ workspace, memoryBudget: memory });
 * try { ... if ((await memory.oomKills()) > 0) status = "limit-exceeded"; } finally { await sandbox.dispose(); await memory.release(); }
 * ```
 */
export async function createMemoryBudget(
  options: CreateMemoryBudgetOptions,
): Promise<MemoryBudget> {
  const found = await findMemoryCgroup(options.parent, { enable: true });
  if ("reason" in found)
    return options.uid !== undefined && process.getuid?.() === 0
      ? sampledBudget(options.uid, options.bytes, found.reason)
      : rlimitOnly(found.reason);
  const dir = join(found.parent, `distdebug-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    await mkdir(dir);
    await writeFile(join(dir, "memory.max"), String(options.bytes));
    await writeFile(join(dir, "memory.swap.max"), "0").catch(() => {});
    await writeFile(join(dir, "memory.oom.group"), "1");
  } catch (error) {
    await rmdir(dir).catch(() => {});
    return rlimitOnly(`${dir}: cannot set the memory limit (${(error as Error).message})`);
  }
  return cgroupBudget(dir);
}

/**
 * Finds the cgroup v2 folder attempts' cgroups would be created in (`parent`, default as in
 * {@link createMemoryBudget}) and checks its memory controller is there and can be handed to
 * children, or says why not. With `enable`, turns the controller on for the folder's children
 * when it is not yet (moving this process into a leaf if needed); without, only checks.
 */
export async function findMemoryCgroup(
  parent?: string,
  options: { enable?: boolean } = {},
): Promise<MemoryCgroupSupport> {
  const chosen = parent ?? process.env.DISTDEBUG_CGROUP_PARENT;
  const own = chosen === undefined ? await findOwnCgroupDir() : { dir: chosen };
  if ("reason" in own) return { reason: `${own.reason}${await boundToV1()}` };
  const controllers = await readWords(join(own.dir, "cgroup.controllers")).catch(() => undefined);
  if (controllers === undefined) return { reason: `${own.dir} is not a cgroup v2 folder` };
  if (!controllers.includes("memory"))
    return {
      reason: `the memory controller is not available in ${own.dir} (cgroup.controllers: ${controllers.join(" ") || "none"})${await boundToV1()}`,
    };
  const subtree = join(own.dir, "cgroup.subtree_control");
  if ((await readWords(subtree).catch((): string[] => [])).includes("memory"))
    return { parent: own.dir };
  const writable = await access(subtree, constants.W_OK).then(
    () => true,
    () => false,
  );
  if (!writable) return { reason: `${subtree} is not writable (the cgroup is not delegated)` };
  if (!options.enable) return { parent: own.dir };
  return enableMemory(own.dir);
}

/** Turns the memory controller on for `dir`'s children, first moving this process out of `dir` if it is in it. */
async function enableMemory(dir: string): Promise<MemoryCgroupSupport> {
  const subtree = join(dir, "cgroup.subtree_control");
  const enable = () =>
    writeFile(subtree, "+memory").then(
      () => undefined,
      (error: Error) => error.message,
    );
  let failure = await enable();
  if (failure === undefined) return { parent: dir };
  const procs = await readWords(join(dir, "cgroup.procs")).catch((): string[] => []);
  if (procs.includes(String(process.pid))) {
    const leaf = join(dir, "distdebug-host");
    await mkdir(leaf).catch(() => {});
    const moved = await writeFile(join(leaf, "cgroup.procs"), String(process.pid)).then(
      () => true,
      () => false,
    );
    if (moved) failure = await enable();
    if (failure === undefined) return { parent: dir };
  }
  return {
    reason: `cannot enable the memory controller in ${subtree} (${failure}); run distdebug in a delegated cgroup of its own, e.g. \`systemd-run --user --scope -p Delegate=yes distdebug ...\`, or set DISTDEBUG_CGROUP_PARENT`,
  };
}

/** ` (it is bound to cgroup v1 here)` when a v1 hierarchy holds the memory controller. */
async function boundToV1(): Promise<string> {
  const text = await readFile("/proc/self/cgroup", "utf8").catch(() => "");
  return /^\d+:[^:]*\bmemory\b[^:]*:/m.test(text)
    ? "; the memory controller is bound to a cgroup v1 hierarchy on this host"
    : "";
}

function rlimitOnly(reason: string): MemoryBudget {
  return {
    enforcement: "rlimit-per-process",
    reason,
    oomKills: async () => 0,
    release: async () => {},
  };
}

/** The budget of a uid's processes, sampled (see `watchUidMemory`). */
function sampledBudget(uid: number, bytes: number, reason: string): MemoryBudget {
  const watch = watchUidMemory(uid, bytes);
  return {
    enforcement: "sampled-total",
    reason,
    oomKills: async () => watch.kills(),
    release: async () => watch.stop(),
  };
}

/** How long {@link MemoryBudget.release} waits for killed processes to leave the cgroup. */
const RELEASE_TRIES = 40;
const RELEASE_PAUSE_MS = 50;

function cgroupBudget(dir: string): MemoryBudget {
  let released: Promise<void> | undefined;
  return {
    enforcement: "cgroup-v2",
    dir,
    oomKills: () => readCounter(join(dir, "memory.events"), "oom_kill"),
    release() {
      released ??= removeCgroup(dir);
      return released;
    },
  };
}

/** Kills every process left in the cgroup (`cgroup.kill`, else one by one), then removes it. */
async function removeCgroup(dir: string): Promise<void> {
  const killed = await writeFile(join(dir, "cgroup.kill"), "1").then(
    () => true,
    () => false,
  );
  if (!killed)
    killAll((await readWords(join(dir, "cgroup.procs")).catch((): string[] => [])).map(Number));
  for (let attempt = 0; attempt < RELEASE_TRIES; attempt++) {
    const code = await rmdir(dir).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    if (code !== "EBUSY") return;
    await delay(RELEASE_PAUSE_MS);
  }
}
