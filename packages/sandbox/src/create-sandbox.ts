import { lstat, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import {
  DistDebugError,
  type SandboxPolicy,
  type SandboxPolicyInput,
  sandboxEnvelopeProblems,
} from "@distdebug/schema";
import type { DiskBudget } from "./disk-budget.js";
import { sandboxUnavailable } from "./errors.js";
import type { SandboxEvent } from "./events.js";
import {
  type BubblewrapSetup,
  bubblewrapPlanner,
  cgroupJoiner,
} from "./internal/bubblewrap-command.js";
import type { BwrapMode } from "./internal/bwrap-args.js";
import { createCommandRunner } from "./internal/command-runner.js";
import {
  findExecutable,
  findSystemTool,
  hostRootLayout,
  loadLauncher,
  NO_LAUNCHER,
  pathDirs,
} from "./internal/host.js";
import { createNoSandbox } from "./internal/no-sandbox.js";
import { resolvePolicy } from "./internal/resolve-policy.js";
import { userNamespaceFilter } from "./internal/seccomp.js";
import type { MemoryBudget } from "./memory-budget.js";
import { prepareReadableDir, prepareWritableDir } from "./prepare-writable-dir.js";
import { NO_SANDBOX_WARNING, type Sandbox } from "./sandbox.js";

/**
 * What the code that created a folder states about it: every entry below `dir`, `dir` itself
 * included, was created owned by `owner` (for example `prepareWorkspace`'s `dir` with the
 * `owner` it was given, whose copy sets each entry's owner as it writes it). A value handed
 * from the copy to the sandbox in memory, never read from the folder, so nothing the agent
 * writes can make it.
 */
export interface OwnedFolder {
  /** The folder (absolute, or relative to the working directory). */
  readonly dir: string;
  readonly owner: { readonly uid: number; readonly gid: number };
}

/** Options of {@link createSandbox}. */
export interface CreateSandboxOptions {
  /** The policy; every field defaults (see `SandboxPolicy` in @distdebug/schema). */
  policy?: SandboxPolicyInput | SandboxPolicy;
  /** Host folder bound read-write at `/workspace` (the default working directory). */
  workspace: string;
  /** Host folder bound read-only at `/task` (made readable for the sandbox user, see `prepareDirs`). */
  task?: string;
  /** Host folder bound read-write at `/output`. */
  output?: string;
  /** Host path of the gateway's Unix socket; bound at `/run/distdebug/gateway.sock` when the policy's network is `gateway`. */
  gateway?: string;
  /**
   * `privileged` (needs root; no user namespace; commands drop to the policy's uid),
   * `user-namespace` (commands run as the caller's uid, or as the policy's uid when the caller
   * is root), or `auto`: `privileged` when root, else `user-namespace`. Default `auto`.
   */
  mode?: "auto" | BwrapMode;
  /**
   * When root: chown `workspace` and `output` to the sandbox user (`prepareWritableDir`) and
   * make `task` readable for others (`prepareReadableDir`). Default true.
   */
  prepareDirs?: boolean;
  /**
   * The workspace's creator's statement that it already belongs to the policy's user (see
   * {@link OwnedFolder}): when it names this workspace and the policy's `user`, and the
   * workspace folder itself is that user's, the chown walk of `prepareDirs` skips the workspace
   * (on a real repository's tree the walk is 0.1-5 s). Default none: the workspace is walked.
   */
  ownedWorkspace?: OwnedFolder;
  /**
   * Disk budgets of the bound folders (see `mountDiskBudget`): a command after which one is
   * exhausted reports `limitHit: "disk"`.
   */
  diskBudgets?: readonly DiskBudget[];
  /**
   * The attempt's memory budget (see `createMemoryBudget`): with a cgroup, every command joins
   * it before bubblewrap starts, and a command during which the kernel killed a process of the
   * budget reports `limitHit: "memory"`. Not with the user-namespace mode as root.
   */
  memoryBudget?: MemoryBudget;
  /** The bwrap executable. Default: `bwrap` found on `PATH`. */
  bwrapPath?: string;
  onEvent?: (event: SandboxEvent) => void;
}

/**
 * Creates a sandbox for one workspace. With the default policy commands run under bubblewrap:
 * no network, a cleared environment, the workspace at `/workspace`, hard limits.
 * Throws `SANDBOX_UNAVAILABLE` (with install instructions) when bwrap or its helpers are missing.
 *
 * @example
 * ```ts
 * const sandbox = await createSandbox({ workspace: "/tmp/ws", policy: { limits: { timeoutMs: 30_000 } } });
 * const result = await sandbox.exec("ls -la && git log -1");
 * await sandbox.dispose();
 * ```
 */
export async function createSandbox(options: CreateSandboxOptions): Promise<Sandbox> {
  const policy = resolvePolicy(options.policy);
  const folders = await checkFolders(options);
  const emit = options.onEvent ?? (() => {});
  if (policy.backend === "no-sandbox") {
    emit({ type: "sandbox-warn", backend: "no-sandbox", message: NO_SANDBOX_WARNING });
    return createNoSandbox({ policy, ...folders, emit });
  }
  const isRoot = process.getuid?.() === 0;
  const tools = await bubblewrapTools(options, isRoot);
  checkGateway(policy, options.gateway);
  await checkBinds(policy);
  if (isRoot && options.prepareDirs !== false)
    await prepareFolders(folders, policy.user, options.ownedWorkspace);
  const setup: BubblewrapSetup = {
    ...tools,
    ...folders,
    policy,
    isRoot,
    gateway: options.gateway,
    budgets: { disk: options.diskBudgets ?? [], memory: options.memoryBudget },
    joinCgroup: await cgroupJoiner(options.memoryBudget, tools.mode === "user-namespace" && isRoot),
    rootLayout: await hostRootLayout(),
    seccomp: seccompFilter(emit),
    emit,
  };
  const runner = createCommandRunner({ policy, emit, plan: bubblewrapPlanner(setup) });
  return { backend: "bubblewrap", mode: tools.mode, policy, ...runner };
}

/** The sandbox's folders, absolute; each must be an existing folder. */
async function checkFolders(options: CreateSandboxOptions) {
  return {
    workspace: await checkDir(options.workspace, "workspace"),
    task: options.task === undefined ? undefined : await checkDir(options.task, "task"),
    output: options.output === undefined ? undefined : await checkDir(options.output, "output"),
  };
}

/**
 * bwrap, prlimit, the mode (`auto`: privileged as root) and the launcher; refuses what cannot
 * work: a missing tool, the privileged mode when not root or without the launcher.
 */
async function bubblewrapTools(options: CreateSandboxOptions, isRoot: boolean) {
  const bwrap = await findExecutable(options.bwrapPath ?? "bwrap", pathDirs(process.env.PATH));
  if (bwrap === undefined)
    throw sandboxUnavailable(`${options.bwrapPath ?? "bwrap"} was not found on PATH`);
  const prlimit = await findSystemTool("prlimit");
  if (prlimit === undefined)
    throw sandboxUnavailable("prlimit (util-linux) was not found in /usr/bin or /bin");
  const mode: BwrapMode =
    options.mode === undefined || options.mode === "auto"
      ? isRoot
        ? "privileged"
        : "user-namespace"
      : options.mode;
  if (mode === "privileged" && !isRoot)
    throw sandboxUnavailable(
      "the privileged mode needs root",
      'use the user-namespace mode (mode: "auto")',
    );
  const launcher = await loadLauncher();
  if (mode === "privileged" && launcher === undefined)
    throw sandboxUnavailable(NO_LAUNCHER.reason, NO_LAUNCHER.fix);
  return { bwrap, prlimit, mode, launcher };
}

/** A policy whose network is the gateway needs the gateway's socket. */
function checkGateway(policy: SandboxPolicy, gateway: string | undefined): void {
  if (policy.network === "gateway" && gateway === undefined)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message:
        'the policy\'s network is "gateway" but no gateway socket path was given to createSandbox',
    });
}

/**
 * As root: the workspace and output handed to the sandbox user (the workspace not walked when
 * its creator says it was made that user's), the task readable for it.
 */
async function prepareFolders(
  folders: { workspace: string; task?: string | undefined; output?: string | undefined },
  user: SandboxPolicy["user"],
  owned: OwnedFolder | undefined,
): Promise<void> {
  if (!(await ownedBy(folders.workspace, user, owned)))
    await prepareWritableDir(folders.workspace, { user });
  if (folders.output !== undefined) await prepareWritableDir(folders.output, { user });
  if (folders.task !== undefined) await prepareReadableDir(folders.task);
}

/**
 * True when `owned` states that `dir` was created as `user`'s and `dir` itself is `user`'s
 * (a statement about another folder, another user, or a folder that was since handed to
 * someone else is not taken).
 */
async function ownedBy(
  dir: string,
  user: SandboxPolicy["user"],
  owned: OwnedFolder | undefined,
): Promise<boolean> {
  if (owned === undefined || resolve(owned.dir) !== resolve(dir)) return false;
  if (owned.owner.uid !== user.uid || owned.owner.gid !== user.gid) return false;
  const info = await lstat(dir);
  return info.uid === user.uid && info.gid === user.gid;
}

/** The seccomp program for this architecture; without one, a `sandbox-warn` event says what is lost. */
function seccompFilter(emit: (event: SandboxEvent) => void): Uint8Array | undefined {
  const seccomp = userNamespaceFilter();
  if (seccomp === undefined)
    emit({
      type: "sandbox-warn",
      backend: "bubblewrap",
      message: `no seccomp filter for ${process.arch}: nested user namespaces are not refused inside the sandbox (filters exist for x64 and arm64)`,
    });
  return seccomp;
}

async function checkDir(path: string, what: string): Promise<string> {
  const absolute = isAbsolute(path) ? path : resolve(path);
  await checkPath(absolute, what);
  if (!(await stat(absolute)).isDirectory())
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${absolute}: the ${what} must be a folder`,
      data: { path: absolute },
    });
  return absolute;
}

/**
 * Each read-only bind's source is an absolute path that exists, and its target is not at or
 * under a system path (`/usr`, `/bin`, `/lib*`, `/etc`, `/proc`, `/dev`, the sandbox's own
 * mounts): a bind there would replace what the sandbox itself runs.
 */
async function checkBinds(policy: SandboxPolicy): Promise<void> {
  for (const bind of policy.readOnlyBinds) {
    if (!isAbsolute(bind.source))
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${bind.source}: a read-only bind's source must be an absolute host path (in a config file a relative one is read against the file's folder by loadConfig)`,
        data: { path: bind.source },
      });
    await checkPath(bind.source, "read-only bind");
  }
  const problems = sandboxEnvelopeProblems(policy, { jsonPath: "policy" });
  if (problems.length > 0)
    throw new DistDebugError({
      code: "INVALID_CONFIG",
      message: `the sandbox policy binds over the sandbox's own paths:\n${problems.map((line) => `  - ${line}`).join("\n")}`,
      data: { problems },
    });
}

async function checkPath(path: string, what: string): Promise<void> {
  try {
    await stat(path);
  } catch {
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${path}: the ${what} does not exist`,
      data: { path },
    });
  }
}
