import { DistDebugError, type SandboxPolicy } from "@distdebug/schema";
import type { SandboxMode } from "../sandbox.js";
import { ETC_FILES, type RootEntry } from "./host.js";
import { DEV_SHM_BYTES, OPEN_FILES_LIMIT, tmpfsInodes } from "./tmpfs-limits.js";

/**
 * Where the gateway socket appears inside the sandbox (policy `network: "gateway"`); also in
 * the `DISTDEBUG_GATEWAY_SOCKET` variable inside.
 *
 * @example
 * ```ts
 * await sandbox.exec(`curl --unix-socket ${GATEWAY_SOCKET_PATH} http://gateway/v1/models`);
 * ```
 */
export const GATEWAY_SOCKET_PATH = "/run/distdebug/gateway.sock";

/** Where the launcher (see `findLauncher`) is bound inside the sandbox. */
const LAUNCHER_TARGET = "/run/distdebug/launch";

/** How bubblewrap isolates (see `SandboxMode`). */
export type BwrapMode = SandboxMode;

/** Everything {@link bwrapArgs} needs; all host paths are absolute. */
export interface BwrapArgsInput {
  policy: SandboxPolicy;
  /**
   * `privileged`: the caller is root; unshare pid, net, ipc, uts, cgroup one by one (no user
   * namespace); the launcher caps the tmpfs inodes and drops to the policy's uid.
   * `user-namespace`: `--unshare-all` (with a user namespace); commands keep the uid bwrap runs as.
   */
  mode: BwrapMode;
  rootLayout: readonly RootEntry[];
  workspace: string;
  task?: string | undefined;
  output?: string | undefined;
  gatewaySocket?: string | undefined;
  /** Absolute path of `prlimit` (under /usr or /bin, so the same path works inside). */
  prlimit: string;
  /**
   * The file descriptor bwrap reads the compiled launcher from (`--ro-bind-data`: no host path
   * to reach, so it works from a folder of mode 0700); when set it replaces prlimit. Needed in
   * `privileged` mode, where nothing else may run with capabilities.
   */
  launcherFd?: number | undefined;
  /** The whole environment inside. */
  env: Readonly<Record<string, string>>;
  /** Working directory inside; default `/workspace`. */
  cwd?: string | undefined;
  /** The file descriptor bwrap writes its JSON status to. */
  statusFd: number;
  /** The file descriptor bwrap reads its seccomp program from (see `userNamespaceFilter`), if any. */
  seccompFd?: number | undefined;
  /** The command: argv inside the sandbox. */
  argv: readonly string[];
}

/**
 * Moves bwrap's options (everything before the first `--`: the host paths of the workspace,
 * `/task`, `/output`, the binds and the gateway socket) into bytes bwrap reads from `fd`
 * (`--args`), so the sandbox's `/proc/1/cmdline` (bwrap is its pid 1) shows the command only.
 */
export function hideOptions(
  args: readonly string[],
  fd: number,
): { args: string[]; options: Uint8Array } {
  const end = args.indexOf("--");
  const options = end < 0 ? args : args.slice(0, end);
  return {
    args: ["--args", String(fd), ...(end < 0 ? [] : args.slice(end))],
    options: Buffer.from(options.map((arg) => `${arg}\0`).join(""), "utf8"),
  };
}

/** The bubblewrap argument list (without the `bwrap` executable itself). */
export function bwrapArgs(input: BwrapArgsInput): string[] {
  const { policy } = input;
  const args: string[] = [];
  if (input.mode === "privileged") {
    args.push("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts");
    args.push("--unshare-cgroup-try");
  } else {
    args.push("--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL");
  }
  args.push("--die-with-parent", "--new-session", "--hostname", "sandbox");
  args.push("--ro-bind", "/usr", "/usr");
  for (const entry of input.rootLayout) {
    if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  // Mount points bwrap creates as root get mode 0700: make the parents readable for the sandbox user.
  for (const dir of parentDirs(input)) args.push("--perms", "0755", "--dir", dir);
  for (const file of ETC_FILES) args.push("--ro-bind-try", file, file);
  for (const bind of policy.readOnlyBinds)
    args.push("--ro-bind", bind.source, bind.target ?? bind.source);
  args.push("--proc", "/proc", "--dev", "/dev");
  args.push("--perms", "1777", "--size", String(DEV_SHM_BYTES), "--tmpfs", "/dev/shm");
  args.push("--perms", "1777", "--size", String(policy.tmpfsBytes), "--tmpfs", "/tmp");
  args.push("--bind", input.workspace, "/workspace");
  if (input.task !== undefined) args.push("--ro-bind", input.task, "/task");
  if (input.output !== undefined) args.push("--bind", input.output, "/output");
  if (policy.network === "gateway" && input.gatewaySocket !== undefined)
    args.push("--bind", input.gatewaySocket, GATEWAY_SOCKET_PATH);
  if (input.launcherFd !== undefined)
    args.push("--perms", "0555", "--ro-bind-data", String(input.launcherFd), LAUNCHER_TARGET);
  args.push("--chdir", input.cwd ?? "/workspace", "--clearenv");
  // The launcher runs with an empty environment (in privileged mode as root: no LD_PRELOAD
  // or LOCPATH of the policy reaches a root process) and sets the policy's after the uid drop.
  if (input.launcherFd === undefined)
    for (const [name, value] of Object.entries(input.env)) args.push("--setenv", name, value);
  if (input.seccompFd !== undefined) args.push("--seccomp", String(input.seccompFd));
  args.push("--json-status-fd", String(input.statusFd), "--");
  if (input.launcherFd !== undefined) {
    args.push(...launcherArgs(input), ...input.argv);
    return args;
  }
  // Without the launcher nothing may run with capabilities an agent's binds could reach.
  if (input.mode === "privileged")
    throw new DistDebugError({
      code: "INTERNAL",
      message:
        "bwrap arguments for privileged mode need the compiled launcher (findLauncher); without it only the user-namespace mode runs",
    });
  args.push(...limitArgs(input), ...input.argv);
  return args;
}

/**
 * The launcher's arguments: limits, the tmpfs mounts whose inodes it caps (privileged mode
 * only: it needs the capabilities it then drops), the uid to drop to (`-` in user-namespace
 * mode), the environment, `--`.
 */
function launcherArgs(input: BwrapArgsInput): string[] {
  const { limits, user } = input.policy;
  const privileged = input.mode === "privileged";
  const env = Object.entries(input.env).map(([name, value]) => `${name}=${value}`);
  const mounts = privileged
    ? [
        ["/tmp", String(tmpfsInodes(input.policy.tmpfsBytes))],
        ["/dev/shm", String(tmpfsInodes(DEV_SHM_BYTES))],
      ]
    : [];
  return [
    LAUNCHER_TARGET,
    String(limits.processes),
    String(limits.memoryBytes),
    String(limits.fileSizeBytes),
    String(OPEN_FILES_LIMIT),
    privileged ? String(user.uid) : "-",
    privileged ? String(user.gid) : "-",
    String(mounts.length),
    ...mounts.flat(),
    String(env.length),
    ...env,
    "--",
  ];
}

/** The folders above the bind targets (not /usr, not the root symlinks), parents first. */
function parentDirs(input: BwrapArgsInput): string[] {
  const targets = [
    "/etc/passwd",
    ...input.policy.readOnlyBinds.map((bind) => bind.target ?? bind.source),
  ];
  if (input.policy.network === "gateway" && input.gatewaySocket !== undefined)
    targets.push(GATEWAY_SOCKET_PATH);
  if (input.launcherFd !== undefined) targets.push(LAUNCHER_TARGET);
  const skip = new Set(["/", "/usr", ...input.rootLayout.map((entry) => entry.path)]);
  const dirs = new Set<string>();
  for (const target of targets) {
    const parts = target
      .replace(/\/+$/, "")
      .split("/")
      .filter((part) => part !== "");
    for (let end = 1; end < parts.length; end += 1) {
      const dir = `/${parts.slice(0, end).join("/")}`;
      const top = `/${parts[0]}`;
      if (skip.has(top)) break;
      dirs.add(dir);
    }
  }
  return [...dirs].sort((left, right) => left.split("/").length - right.split("/").length);
}

/** `prlimit` with the policy's limits (hard and soft), then `--`. */
export function limitArgs(input: { policy: SandboxPolicy; prlimit: string }): string[] {
  const { limits } = input.policy;
  return [
    input.prlimit,
    `--nproc=${limits.processes}`,
    `--as=${limits.memoryBytes}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${OPEN_FILES_LIMIT}`,
    "--core=0",
    "--",
  ];
}
