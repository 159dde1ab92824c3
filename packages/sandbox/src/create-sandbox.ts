import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { DistDebugError, type SandboxPolicy, type SandboxPolicyInput } from "@distdebug/schema";
import type { DiskBudget } from "./disk-budget.js";
import { sandboxDisposed, sandboxUnavailable, USERNS_HINT } from "./errors.js";
import type { SandboxEvent } from "./events.js";
import { type BwrapMode, bwrapArgs, GATEWAY_SOCKET_PATH } from "./internal/bwrap-args.js";
import { toExecResult } from "./internal/exec-result.js";
import {
  findExecutable,
  findLauncher,
  findSystemTool,
  hostRootLayout,
  pathDirs,
} from "./internal/host.js";
import { createNoSandbox } from "./internal/no-sandbox.js";
import { resolvePolicy } from "./internal/resolve-policy.js";
import { type RunProcessResult, runProcess } from "./internal/run-process.js";
import { userNamespaceFilter } from "./internal/seccomp.js";
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
  const setpriv = mode === "privileged" ? await findSystemTool("setpriv") : undefined;
  if (mode === "privileged" && setpriv === undefined)
    throw sandboxUnavailable("setpriv (util-linux) was not found in /usr/bin or /bin");
  const envTool = mode === "privileged" ? await findSystemTool("env") : undefined;
  if (mode === "privileged" && envTool === undefined)
    throw sandboxUnavailable("env (coreutils) was not found in /usr/bin or /bin");
  if (policy.network === "gateway" && options.gateway === undefined)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message:
        'the policy\'s network is "gateway" but no gateway socket path was given to createSandbox',
    });
  for (const bind of policy.readOnlyBinds) await checkPath(bind.source, "read-only bind");
  if (isRoot && options.prepareDirs !== false) {
    await prepareWritableDir(workspace, { user: policy.user });
    if (output !== undefined) await prepareWritableDir(output, { user: policy.user });
    if (task !== undefined) await prepareReadableDir(task);
  }
  const rootLayout = await hostRootLayout();
  const seccomp = userNamespaceFilter();
  const launcher = await findLauncher();
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
      setpriv,
      envTool,
      launcher,
      env,
      cwd: execOptions.cwd,
      statusFd: 3,
      seccompFd: seccomp === undefined ? undefined : 4,
      argv: typeof command === "string" ? ["/bin/sh", "-c", command] : command,
    });
    const controller = new AbortController();
    running.add(controller);
    const signal = execOptions.signal
      ? AbortSignal.any([execOptions.signal, controller.signal])
      : controller.signal;
    const userNamespaceAsRoot = mode === "user-namespace" && isRoot;
    let raw: RunProcessResult;
    try {
      raw = await runProcess({
        file: bwrap,
        args,
        env: {},
        uid: userNamespaceAsRoot ? policy.user.uid : undefined,
        gid: userNamespaceAsRoot ? policy.user.gid : undefined,
        stdin: execOptions.stdin,
        timeoutMs: execOptions.timeoutMs ?? policy.limits.timeoutMs,
        outputBytes: policy.limits.outputBytes,
        killOutputBytes: policy.limits.killOutputBytes,
        signal,
        statusFd: true,
        fd4Input: seccomp,
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
