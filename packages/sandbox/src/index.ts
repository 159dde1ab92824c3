/**
 * Runs the agent's commands under bubblewrap with no network, a cleared environment and hard limits
 * on memory, processes, file size, output and time.
 *
 * @packageDocumentation
 * @module @distdebug/sandbox
 */
export {
  type AttemptLimitHit,
  type AttemptSandbox,
  type CreateAttemptSandboxOptions,
  createAttemptSandbox,
  type OpenAttemptSandboxOptions,
} from "./attempt-sandbox.js";
export { type CreateSandboxOptions, createSandbox, type OwnedFolder } from "./create-sandbox.js";
export {
  type DiskBudget,
  type DiskEnforcement,
  type MountDiskBudgetOptions,
  mountDiskBudget,
  unmountLeftoverDiskBudgets,
} from "./disk-budget.js";
export { INSTALL_HINT } from "./errors.js";
export type { LimitHit, SandboxBackendName, SandboxEvent } from "./events.js";
export { GATEWAY_SOCKET_PATH } from "./internal/bwrap-args.js";
export {
  type CreateMemoryBudgetOptions,
  createMemoryBudget,
  findMemoryCgroup,
  MEMORY_SAMPLE_MS,
  type MemoryBudget,
  type MemoryCgroupSupport,
  type MemoryEnforcement,
} from "./memory-budget.js";
export { parseSandboxPolicy } from "./parse-sandbox-policy.js";
export {
  type PrepareWritableDirOptions,
  prepareReadableDir,
  prepareWritableDir,
} from "./prepare-writable-dir.js";
export {
  type BackendProbe,
  type ProbeSandboxOptions,
  probeSandbox,
  type SandboxProbe,
} from "./probe.js";
export {
  type ExecOptions,
  type ExecResult,
  NO_SANDBOX_WARNING,
  type Sandbox,
  type SandboxMode,
} from "./sandbox.js";
export {
  type LeaseSandboxUserOptions,
  leaseSandboxUser,
  SANDBOX_UID_COUNT,
  SANDBOX_UID_FIRST,
  type SandboxUserLease,
} from "./sandbox-user-lease.js";
