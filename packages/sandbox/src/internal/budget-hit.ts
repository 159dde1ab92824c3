import type { DiskBudget } from "../disk-budget.js";
import type { MemoryBudget } from "../memory-budget.js";

/** The budgets the commands of one sandbox count against. */
export interface Budgets {
  disk: readonly DiskBudget[];
  memory?: MemoryBudget | undefined;
}

/**
 * Which budget ran out: `disk` when a disk budget is (nearly) full or out of inodes, else
 * `memory` when processes of the memory budget were killed for it since `oomKillsBefore` kills
 * were counted (the kernel's, or the sampler's). The one answer to "was a budget hit?", for a
 * command (`createSandbox`) and for a whole attempt (`createAttemptSandbox`).
 */
export async function budgetHit(
  budgets: Budgets,
  oomKillsBefore = 0,
): Promise<"disk" | "memory" | undefined> {
  for (const budget of budgets.disk) if (await budget.exhausted()) return "disk";
  if (budgets.memory !== undefined && (await budgets.memory.oomKills()) > oomKillsBefore)
    return "memory";
  return undefined;
}
