import { stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import {
  DistDebugError,
  type SandboxPolicy,
  type SandboxPolicyInput,
  sandboxEnvelopeProblems,
} from "@distdebug/schema";
import type { DiskBudget } from "./disk-budget.js";
import { sandboxDisposed, sandboxUnavailable, USERNS_HINT } from "./errors.js";
import type { SandboxEvent } from "./events.js";
import {
  type BwrapMode,
  bwrapArgs,
  GATEWAY_SOCKET_PATH,
  hideOptions,
} from "./internal/bwrap-args.js";
import { toExecResult } from "./internal/exec-result.js";
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
import { type RunProcessResult, runProcess } from "./internal/run-process.js";
import { userNamespaceFilter } from "./internal/seccomp.js";
import type { MemoryBudget } from "./memory-budget.js";
import { prepareReadableDir, prepareWritableDir } from "./prepare-writable-dir.js";
import { type ExecOptions, type ExecResult, NO_SANDBOX_WARNING, type Sandbox } from "./sandbox.js";

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
  const workspace = await checkDir(options.workspace, "workspace");
  const task = options.task === undefined ? undefined : await checkDir(options.task, "task");
  const output =
    options.output === undefined ? undefined : await checkDir(options.output, "output");
  const emit = options.onEvent ?? (() => {});
  const isRoot = process.getuid?.() === 0;

  if (policy.backend === "no-sandbox") {
    emit({ type: "sandbox-warn", backend: "no-sandbox", message: NO_SANDBOX_WARNING });
    return createNoSandbox({ policy, workspace, task, output, emit });
  }

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
  if (policy.network === "gateway" && options.gateway === undefined)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message:
        'the policy\'s network is "gateway" but no gateway socket path was given to createSandbox',
    });
  await checkBinds(policy);
  if (isRoot && options.prepareDirs !== false) {
    await prepareWritableDir(workspace, { user: policy.user });
    if (output !== undefined) await prepareWritableDir(output, { user: policy.user });
    if (task !== undefined) await prepareReadableDir(task);
  }
  const joinCgroup = await cgroupJoiner(options.memoryBudget, mode === "user-namespace" && isRoot);
  const rootLayout = await hostRootLayout();
  const seccomp = userNamespaceFilter();
  if (seccomp === undefined)
    emit({
      type: "sandbox-warn",
      backend: "bubblewrap",
      message: `no seccomp filter for ${process.arch}: nested user namespaces are not refused inside the sandbox (filters exist for x64 and arm64)`,
    });
  const fds = inputDescriptors(seccomp, launcher);
  const running = new Set<AbortController>();
  let disposed = false;
  let commandCount = 0;

  const exec = async (
    command: string | readonly string[],
    execOptions: ExecOptions = {},
  ): Promise<ExecResult> => {
    if (disposed) throw sandboxDisposed();
    const commandId = ++commandCount;
    const env = { ...policy.env, ...(execOptions.env ?? {}) };
    if (policy.network === "gateway") env.DISTDEBUG_GATEWAY_SOCKET = GATEWAY_SOCKET_PATH;
    const args = bwrapArgs({
      policy,
      mode,
      rootLayout,
      workspace,
      task,
      output,
      gatewaySocket: options.gateway,
      prlimit,
      launcherFd: fds.launcher,
      env,
      cwd: execOptions.cwd,
      statusFd: 3,
      seccompFd: fds.seccomp,
      argv: typeof command === "string" ? ["/bin/sh", "-c", command] : command,
    });
    const controller = new AbortController();
    running.add(controller);
    const signal = execOptions.signal
      ? AbortSignal.any([execOptions.signal, controller.signal])
      : controller.signal;
    const userNamespaceAsRoot = mode === "user-namespace" && isRoot;
    const oomKillsBefore = await options.memoryBudget?.oomKills();
    // bwrap's options name host paths: they go through a pipe, not its command line.
    const hidden = hideOptions(args, fds.options);
    const spawned = joinCgroup(bwrap, hidden.args);
    let raw: RunProcessResult;
    try {
      raw = await runProcess({
        ...spawned,
        env: {},
        uid: userNamespaceAsRoot ? policy.user.uid : undefined,
        gid: userNamespaceAsRoot ? policy.user.gid : undefined,
        stdin: execOptions.stdin,
        timeoutMs: execOptions.timeoutMs ?? policy.limits.timeoutMs,
        outputBytes: policy.limits.outputBytes,
        killOutputBytes: policy.limits.killOutputBytes,
        signal,
        statusFd: true,
        inputFds: [...fds.inputs, hidden.options],
        onStatus: (status) =>
          emit({
            type: "command-start",
            commandId,
            command,
            pid: status.childPid,
            pidNamespace: status.pidNamespace,
          }),
      });
    } finally {
      running.delete(controller);
    }
    if (raw.aborted)
      throw new DistDebugError({ code: "ABORTED", message: "the command was aborted" });
    if (raw.spawnError)
      throw sandboxUnavailable(`bwrap could not be started (${raw.spawnError.message})`);
    const killed = raw.timedOut || raw.outputLimitHit;
    if (!killed && raw.statusExitCode === undefined) throw setupError(raw.stderr.text(), mode);
    const result = toExecResult(raw);
    if (result.limitHit === undefined && (await anyExhausted(options.diskBudgets)))
      result.limitHit = "disk";
    if (
      result.limitHit === undefined &&
      (await oomKilledSince(options.memoryBudget, oomKillsBefore))
    )
      result.limitHit = "memory";
    emit({ type: "command-end", commandId, ...pick(result) });
    return result;
  };

  return {
    backend: "bubblewrap",
    mode,
    policy,
    exec,
    async dispose() {
      disposed = true;
      for (const controller of running) controller.abort();
    },
  };
}

/**
 * The descriptors bwrap reads from, from 4 on (3 is its status): the seccomp program and the
 * launcher when there are, then its options.
 */
function inputDescriptors(seccomp: Uint8Array | undefined, launcher: Uint8Array | undefined) {
  const inputs = [seccomp, launcher].filter((bytes) => bytes !== undefined);
  return {
    inputs,
    seccomp: seccomp === undefined ? undefined : 4,
    launcher: launcher === undefined ? undefined : 4 + inputs.indexOf(launcher),
    options: 4 + inputs.length,
  };
}

/**
 * How a command is spawned: bwrap itself, or (with a cgroup memory budget) `sh` that first
 * writes its own pid to the cgroup's `cgroup.procs` and then becomes bwrap, so bwrap and every
 * process it starts count against the budget from their first byte.
 */
async function cgroupJoiner(
  budget: MemoryBudget | undefined,
  userNamespaceAsRoot: boolean,
): Promise<(bwrap: string, args: string[]) => { file: string; args: string[] }> {
  if (budget?.dir === undefined) return (file, args) => ({ file, args });
  if (userNamespaceAsRoot)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message:
        "a cgroup memory budget cannot be used in the user-namespace mode as root (commands start as the sandbox uid, which may not move into the cgroup): use the privileged mode",
    });
  const sh = await findSystemTool("sh");
  if (sh === undefined) throw sandboxUnavailable("sh was not found in /usr/bin or /bin");
  const procs = join(budget.dir, "cgroup.procs");
  return (bwrap, args) => ({
    file: sh,
    args: ["-c", 'echo $$ > "$0" && exec "$@"', procs, bwrap, ...args],
  });
}

/** True when the kernel killed a process of the budget since `before` oom kills were counted. */
async function oomKilledSince(budget: MemoryBudget | undefined, before = 0): Promise<boolean> {
  return budget !== undefined && (await budget.oomKills()) > before;
}

async function anyExhausted(budgets: readonly DiskBudget[] = []): Promise<boolean> {
  for (const budget of budgets) if (await budget.exhausted()) return true;
  return false;
}

function pick(result: ExecResult) {
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    timedOut: result.timedOut,
    truncated: result.truncated,
    limitHit: result.limitHit,
  };
}

function setupError(stderr: string, mode: BwrapMode): DistDebugError {
  const detail = stderr.trim().split("\n").slice(-3).join(" | ");
  if (
    /namespace|Operation not permitted|setting up uid map/i.test(detail) &&
    mode === "user-namespace"
  )
    return sandboxUnavailable(`bwrap cannot create a user namespace (${detail})`, USERNS_HINT);
  return new DistDebugError({
    code: "SANDBOX_ERROR",
    message: `bwrap could not set up the sandbox: ${detail || "no message"}`,
    data: { stderr },
  });
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
