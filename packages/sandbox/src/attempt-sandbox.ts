import { chmod, chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DistDebugError,
  MAX_DIAGNOSIS_BYTES,
  MAX_TRAJECTORY_BYTES,
  type ResourceEnforcement,
  type SandboxPolicy,
  type SandboxPolicyInput,
} from "@distdebug/schema";
import { type CreateSandboxOptions, createSandbox } from "./create-sandbox.js";
import { type DiskBudget, mountDiskBudget } from "./disk-budget.js";
import { budgetHit } from "./internal/budget-hit.js";
import { resolvePolicy } from "./internal/resolve-policy.js";
import { createMemoryBudget, type MemoryBudget } from "./memory-budget.js";
import type { Sandbox } from "./sandbox.js";
import { leaseSandboxUser, type SandboxUserLease } from "./sandbox-user-lease.js";

const MiB = 1024 * 1024;
/** Size cap of `/output`: the diagnosis and trajectory caps plus room for the agent's temp files. */
const OUTPUT_BYTES = MAX_DIAGNOSIS_BYTES + MAX_TRAJECTORY_BYTES + MiB;
/** The work folder's cap while the workspace is copied in, before `open` sets it to used + `diskBytes`. */
const MATERIALIZE_BYTES = 1024 * 1024 * MiB;

/** Options of {@link createAttemptSandbox}. */
export interface CreateAttemptSandboxOptions {
  /**
   * The attempt's own work folder (created if missing, empty): `workspace/`, `task/` and
   * `output/` go in it. Inside the sandbox its path does not show (as root it is a tmpfs).
   */
  dir: string;
  /** The attempt's policy; every field defaults. As root its `user` becomes the attempt's leased uid. */
  policy?: SandboxPolicyInput | SandboxPolicy;
}

/** Options of {@link AttemptSandbox.open}: those of `createSandbox` the attempt does not own. */
export type OpenAttemptSandboxOptions = Pick<
  CreateSandboxOptions,
  "gateway" | "mode" | "bwrapPath" | "onEvent" | "ownedWorkspace"
>;

/** The budget an attempt ran out of, and a one-line message that says which and how large. */
export interface AttemptLimitHit {
  limit: "disk" | "memory";
  message: string;
}

/** One attempt's sandbox and everything it holds on the host; see {@link createAttemptSandbox}. */
export interface AttemptSandbox {
  /** The policy commands run under: the given one, with the leased uid as its `user` as root. */
  readonly policy: SandboxPolicy;
  /** How each resource is bounded (recorded in `attempt.json`'s `sandbox.enforcement`). */
  readonly enforcement: ResourceEnforcement;
  /** Host folder of `/workspace`: copy the workspace in before {@link AttemptSandbox.open}. */
  readonly workspaceDir: string;
  /**
   * Who the workspace copy should be created as, when the sandbox would otherwise hand it over
   * (as root with bubblewrap: the leased uid and gid); undefined when nothing is handed over.
   * A copy that sets this owner on every entry as it writes it (`prepareWorkspace`'s `owner`)
   * passes `{ dir: workspaceDir, owner }` to {@link AttemptSandbox.open} as `ownedWorkspace`,
   * and the sandbox skips its walk of the workspace.
   */
  readonly workspaceOwner: { readonly uid: number; readonly gid: number } | undefined;
  /** Host folder of `/task` (read-only inside): write it before {@link AttemptSandbox.open}. */
  readonly taskDir: string;
  /** Host folder of `/output` (exists). */
  readonly outputDir: string;
  /**
   * A private folder for the model gateway's Unix socket (mode 0700; as root it belongs to the
   * attempt's uid, so only the attempt's commands and root can reach a socket in it).
   */
  readonly gatewayDir: string;
  /**
   * Caps the workspace's growth from here at the policy's `limits.diskBytes`, then creates the
   * sandbox (its commands report `limitHit: "disk"` or `"memory"` for the attempt's budgets).
   * Once per attempt.
   */
  open(options?: OpenAttemptSandboxOptions): Promise<Sandbox>;
  /** The budget the attempt ran out of so far (disk first, then memory), or undefined. */
  limitHit(): Promise<AttemptLimitHit | undefined>;
  /**
   * Disposes the sandbox, kills what is left of the attempt's processes (cgroup), unmounts the
   * disk budgets (their content is gone), removes the gateway folder and gives the uid back.
   * Always call it; later calls do nothing.
   */
  release(): Promise<void>;
}

/** What an attempt holds, in the order it took them (released in reverse). */
interface Held {
  lease?: SandboxUserLease | undefined;
  memory?: MemoryBudget | undefined;
  disk: DiskBudget[];
  gatewayDir?: string | undefined;
  sandbox?: Sandbox | undefined;
}

/**
 * Takes what one attempt holds while it runs. As root with the bubblewrap backend: a uid of
 * its own (`leaseSandboxUser`: a fork loop in one attempt does not starve another's forks),
 * a tmpfs disk budget on its work folder (the workspace may grow by `limits.diskBytes` once
 * {@link AttemptSandbox.open} is called) and one of 34 MiB on `/output` (`mountDiskBudget`).
 * With bubblewrap: a memory total of `limits.memoryBytes` (`createMemoryBudget`: a cgroup
 * where one is delegated, else sampled over the leased uid as root, else per process only).
 * Always: a private folder for the gateway's socket. `enforcement` says how each is bounded;
 * {@link AttemptSandbox.limitHit} says which budget ran out. On failure what was taken is
 * released before it throws.
 *
 * @example
 * ```ts
 * const attempt = await createAttemptSandbox({ dir: "/tmp/attempt-1", policy });
 * try {
 *   await copyWorkspace(attempt.workspaceDir, attempt.workspaceOwner);
 *   const sandbox = await attempt.open(
 *     attempt.workspaceOwner
 *       ? { ownedWorkspace: { dir: attempt.workspaceDir, owner: attempt.workspaceOwner } }
 *       : {},
 *   );
 *   await sandbox.exec("make test");
 *   const hit = await attempt.limitHit(); // { limit: "disk", message: "..." } or undefined
 * } finally {
 *   await attempt.release();
 * }
 * ```
 */
export async function createAttemptSandbox(
  options: CreateAttemptSandboxOptions,
): Promise<AttemptSandbox> {
  const given = resolvePolicy(options.policy);
  const sandboxed = given.backend === "bubblewrap" && process.getuid?.() === 0;
  const held: Held = { disk: [] };
  try {
    held.lease = sandboxed ? await leaseSandboxUser() : undefined;
    const policy = held.lease
      ? { ...given, user: { uid: held.lease.uid, gid: held.lease.gid } }
      : given;
    if (policy.backend === "bubblewrap")
      held.memory = await createMemoryBudget({
        bytes: policy.limits.memoryBytes,
        ...(held.lease ? { uid: held.lease.uid } : {}),
      });
    const outputDir = join(options.dir, "output");
    if (sandboxed) await mountDiskBudgets(held, options.dir, outputDir);
    await mkdir(outputDir, { recursive: true });
    held.gatewayDir = await createGatewayDir(held.lease);
    return attemptSandbox(held, policy, options.dir);
  } catch (error) {
    await releaseHeld(held);
    throw error;
  }
}

/** The work folder's budget (first: `open` resizes it), then `/output`'s inside it. */
async function mountDiskBudgets(held: Held, dir: string, outputDir: string): Promise<void> {
  held.disk.push(await mountDiskBudget({ dir, bytes: MATERIALIZE_BYTES }));
  held.disk.push(await mountDiskBudget({ dir: outputDir, bytes: OUTPUT_BYTES }));
}

/** A new folder of mode 0700 for the gateway's socket, the leased uid's when there is one. */
async function createGatewayDir(lease: SandboxUserLease | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "ddgw-"));
  await chmod(dir, 0o700);
  if (lease) await chown(dir, lease.uid, lease.gid);
  return dir;
}

function attemptSandbox(held: Held, policy: SandboxPolicy, dir: string): AttemptSandbox {
  const paths = {
    workspaceDir: join(dir, "workspace"),
    taskDir: join(dir, "task"),
    outputDir: join(dir, "output"),
    gatewayDir: held.gatewayDir ?? "",
  };
  const budgets = { disk: held.disk, memory: held.memory };
  let released: Promise<void> | undefined;
  return {
    ...paths,
    policy,
    workspaceOwner: held.lease ? { uid: held.lease.uid, gid: held.lease.gid } : undefined,
    enforcement: enforcementOf(held),
    async open(openOptions = {}) {
      if (held.sandbox !== undefined || released !== undefined)
        throw new DistDebugError({
          code: "INVALID_ARGUMENT",
          message: "the attempt's sandbox was opened already (or released): open it once",
        });
      await held.disk[0]?.limitGrowth(policy.limits.diskBytes);
      held.sandbox = await createSandbox({
        ...openOptions,
        policy,
        workspace: paths.workspaceDir,
        task: paths.taskDir,
        output: paths.outputDir,
        diskBudgets: held.disk,
        ...(held.memory ? { memoryBudget: held.memory } : {}),
      });
      return held.sandbox;
    },
    async limitHit() {
      const limit = await budgetHit(budgets);
      return limit === undefined ? undefined : { limit, message: limitMessage(limit, policy) };
    },
    release() {
      released ??= releaseHeld(held);
      return released;
    },
  };
}

function enforcementOf(held: Held): ResourceEnforcement {
  const capped =
    held.disk.length > 0 && held.disk.every((budget) => budget.enforcement === "tmpfs");
  return {
    memory: held.memory?.enforcement ?? "rlimit-per-process",
    processes: held.lease ? "per-attempt-uid" : "shared-uid",
    disk: capped ? "tmpfs" : "none",
  };
}

function limitMessage(limit: AttemptLimitHit["limit"], policy: SandboxPolicy): string {
  const { limits } = policy;
  return limit === "disk"
    ? `the attempt wrote past its disk budget (workspace growth ${formatMiB(limits.diskBytes)}, /output ${formatMiB(OUTPUT_BYTES)})`
    : `the attempt's processes used their memory budget together (${formatMiB(limits.memoryBytes)}) and were killed`;
}

function formatMiB(bytes: number): string {
  return `${Math.round(bytes / MiB)} MiB`;
}

/** Releases what an attempt holds, newest first. */
async function releaseHeld(held: Held): Promise<void> {
  await held.sandbox?.dispose();
  await held.memory?.release();
  for (const budget of [...held.disk].reverse()) await budget.release();
  if (held.gatewayDir !== undefined) await rm(held.gatewayDir, { recursive: true, force: true });
  await held.lease?.release();
}
