import { join } from "node:path";
import {
  createMemoryBudget,
  type DiskBudget,
  leaseSandboxUser,
  type MemoryBudget,
  mountDiskBudget,
  type SandboxUserLease,
} from "@distdebug/sandbox";
import {
  MAX_DIAGNOSIS_BYTES,
  MAX_TRAJECTORY_BYTES,
  type ResourceEnforcement,
  type SandboxPolicy,
} from "@distdebug/schema";

const MiB = 1024 * 1024;
/** Size cap of `/output`: the diagnosis and trajectory caps plus room for the agent's temp files. */
export const OUTPUT_DIR_BYTES = MAX_DIAGNOSIS_BYTES + MAX_TRAJECTORY_BYTES + MiB;
/** The work folder's cap while the workspace is copied in, before it is set to used + `diskBytes`. */
const MATERIALIZE_BYTES = 1024 * 1024 * MiB;

/**
 * What one attempt holds on the host for its lifetime: a uid of its own (as root), a disk
 * budget on its work folder (workspace and task) and one on `/output`, and a memory budget (a
 * cgroup where a cgroup v2 memory controller is delegated). Released by
 * {@link AttemptResources.release}, always.
 */
export interface AttemptResources {
  /** The policy with the leased uid as its user (unchanged when no uid was leased). */
  policy: SandboxPolicy;
  workspaceDir: string;
  taskDir: string;
  outputDir: string;
  /** Both budgets, for the sandbox's `limitHit: "disk"`. */
  budgets: DiskBudget[];
  /** The attempt's memory budget, for the sandbox (its `enforcement` says whether it is a total). */
  memory: MemoryBudget | undefined;
  enforcement: ResourceEnforcement;
  /** Caps the work folder at what it holds plus the policy's `diskBytes` (after the copy). */
  startGrowthBudget(): Promise<void>;
  /** True when the workspace or `/output` ran out of its disk budget. */
  diskExhausted(): Promise<boolean>;
  /** True when the kernel killed processes of the attempt for its memory budget. */
  memoryExhausted(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Leases the attempt's uid and mounts its disk budgets (root with a bubblewrap policy; else
 * the policy's uid and no caps, as the enforcement record says), and gives a bubblewrap
 * attempt its memory budget (`limits.memoryBytes` in total: in a cgroup where one can hold it,
 * else sampled over the leased uid's processes as root).
 */
export async function holdAttemptResources(
  work: string,
  policy: SandboxPolicy,
): Promise<AttemptResources> {
  const sandboxed = policy.backend === "bubblewrap" && process.getuid?.() === 0;
  const lease: SandboxUserLease | undefined = sandboxed ? await leaseSandboxUser() : undefined;
  const budgets: DiskBudget[] = [];
  let memory: MemoryBudget | undefined;
  const release = async () => {
    await memory?.release();
    for (const budget of budgets.reverse()) await budget.release();
    await lease?.release();
  };
  try {
    if (policy.backend === "bubblewrap")
      memory = await createMemoryBudget({
        bytes: policy.limits.memoryBytes,
        ...(lease ? { uid: lease.uid } : {}),
      });
    if (sandboxed) budgets.push(await mountDiskBudget({ dir: work, bytes: MATERIALIZE_BYTES }));
    const outputDir = join(work, "output");
    if (sandboxed) budgets.push(await mountDiskBudget({ dir: outputDir, bytes: OUTPUT_DIR_BYTES }));
    const capped = budgets.length > 0 && budgets.every((budget) => budget.enforcement === "tmpfs");
    return {
      policy: lease ? { ...policy, user: { uid: lease.uid, gid: lease.gid } } : policy,
      workspaceDir: join(work, "workspace"),
      taskDir: join(work, "task"),
      outputDir,
      budgets,
      memory,
      enforcement: {
        memory: memory?.enforcement ?? "rlimit-per-process",
        processes: lease ? "per-attempt-uid" : "shared-uid",
        disk: capped ? "tmpfs" : "none",
      },
      startGrowthBudget: async () => budgets[0]?.limitGrowth(policy.limits.diskBytes),
      async diskExhausted() {
        for (const budget of budgets) if (await budget.exhausted()) return true;
        return false;
      },
      memoryExhausted: async () => ((await memory?.oomKills()) ?? 0) > 0,
      release,
    };
  } catch (error) {
    await release();
    throw error;
  }
}
