import { join } from "node:path";
import { DistDebugError, type SandboxPolicy } from "@distdebug/schema";
import { sandboxUnavailable, USERNS_HINT } from "../errors.js";
import type { SandboxEvent } from "../events.js";
import type { MemoryBudget } from "../memory-budget.js";
import { type Budgets, budgetHit } from "./budget-hit.js";
import { type BwrapMode, bwrapArgs, GATEWAY_SOCKET_PATH, hideOptions } from "./bwrap-args.js";
import type { CommandBackend, CommandPlan } from "./command-runner.js";
import { findSystemTool, type RootEntry } from "./host.js";
import type { RunProcessResult } from "./run-process.js";

/** What every command of one bubblewrap sandbox shares, found once by `createSandbox`. */
export interface BubblewrapSetup {
  policy: SandboxPolicy;
  mode: BwrapMode;
  /** The caller is root (with the user-namespace mode, bwrap then starts as the policy's uid). */
  isRoot: boolean;
  bwrap: string;
  prlimit: string;
  rootLayout: readonly RootEntry[];
  workspace: string;
  task?: string | undefined;
  output?: string | undefined;
  gateway?: string | undefined;
  seccomp: Uint8Array | undefined;
  launcher: Uint8Array | undefined;
  budgets: Budgets;
  /** How bwrap is spawned (see {@link cgroupJoiner}). */
  joinCgroup: (bwrap: string, args: string[]) => { file: string; args: string[] };
  emit: (event: SandboxEvent) => void;
}

/**
 * Plans each command of a bubblewrap sandbox: bwrap's arguments (its options through a pipe,
 * not its command line: they name host paths), the seccomp program and the launcher on
 * descriptors, the cgroup to join, a `command-start` event once bwrap names the sandbox's
 * init, and after the command whether a disk or memory budget ran out during it.
 */
export function bubblewrapPlanner(setup: BubblewrapSetup): CommandBackend["plan"] {
  const { policy, mode } = setup;
  const fds = inputDescriptors(setup.seccomp, setup.launcher);
  const userNamespaceAsRoot = mode === "user-namespace" && setup.isRoot;
  return async (command, options, commandId): Promise<CommandPlan> => {
    const env = { ...policy.env, ...(options.env ?? {}) };
    if (policy.network === "gateway") env.DISTDEBUG_GATEWAY_SOCKET = GATEWAY_SOCKET_PATH;
    const args = bwrapArgs({
      policy,
      mode,
      rootLayout: setup.rootLayout,
      workspace: setup.workspace,
      task: setup.task,
      output: setup.output,
      gatewaySocket: setup.gateway,
      prlimit: setup.prlimit,
      launcherFd: fds.launcher,
      env,
      cwd: options.cwd,
      statusFd: 3,
      seccompFd: fds.seccomp,
      argv: typeof command === "string" ? ["/bin/sh", "-c", command] : command,
    });
    const oomKillsBefore = await setup.budgets.memory?.oomKills();
    const hidden = hideOptions(args, fds.options);
    return {
      process: {
        ...setup.joinCgroup(setup.bwrap, hidden.args),
        env: {},
        uid: userNamespaceAsRoot ? policy.user.uid : undefined,
        gid: userNamespaceAsRoot ? policy.user.gid : undefined,
        statusFd: true,
        inputFds: [...fds.inputs, hidden.options],
        onStatus: (status) =>
          setup.emit({
            type: "command-start",
            commandId,
            command,
            pid: status.childPid,
            pidNamespace: status.pidNamespace,
          }),
      },
      check: (raw) => checkStarted(raw, mode),
      limitHit: () => budgetHit(setup.budgets, oomKillsBefore),
    };
  };
}

/** Throws when bwrap could not be started or could not set the sandbox up. */
function checkStarted(raw: RunProcessResult, mode: BwrapMode): void {
  if (raw.spawnError)
    throw sandboxUnavailable(`bwrap could not be started (${raw.spawnError.message})`);
  const killed = raw.timedOut || raw.outputLimitHit;
  if (!killed && raw.statusExitCode === undefined) throw setupError(raw.stderr.text(), mode);
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
export async function cgroupJoiner(
  budget: MemoryBudget | undefined,
  userNamespaceAsRoot: boolean,
): Promise<BubblewrapSetup["joinCgroup"]> {
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
