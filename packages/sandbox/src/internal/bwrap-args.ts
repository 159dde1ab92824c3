import { DistDebugError, type SandboxPolicy } from "@distdebug/schema";
import type { SandboxMode } from "../sandbox.js";
import { ETC_FILES, type RootEntry } from "./host.js";

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
   * namespace) and drop to the policy's uid with `setpriv` after `prlimit`.
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
  /** Absolute path of `setpriv`; needed in `privileged` mode. */
  setpriv?: string | undefined;
  /** Absolute path of `env`; needed in `privileged` mode. */
  envTool?: string | undefined;
  /** Absolute host path of the compiled launcher; when set it replaces prlimit, setpriv and env. */
  launcher?: string | undefined;
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
  args.push("--perms", "1777", "--size", String(policy.tmpfsBytes), "--tmpfs", "/tmp");
  args.push("--bind", input.workspace, "/workspace");
  if (input.task !== undefined) args.push("--ro-bind", input.task, "/task");
  if (input.output !== undefined) args.push("--bind", input.output, "/output");
  if (policy.network === "gateway" && input.gatewaySocket !== undefined)
    args.push("--bind", input.gatewaySocket, GATEWAY_SOCKET_PATH);
  if (input.launcher !== undefined) args.push("--ro-bind", input.launcher, LAUNCHER_TARGET);
  args.push("--chdir", input.cwd ?? "/workspace", "--clearenv");
  // Privileged mode: prlimit and setpriv run as root, so they get an empty environment (no
  // LD_PRELOAD or LOCPATH of the policy reaches a root process); `env -i` sets the policy's
  // environment after the uid drop.
  if (input.mode === "user-namespace" && input.launcher === undefined)
    for (const [name, value] of Object.entries(input.env)) args.push("--setenv", name, value);
  if (input.seccompFd !== undefined) args.push("--seccomp", String(input.seccompFd));
  args.push("--json-status-fd", String(input.statusFd), "--");
  if (input.launcher !== undefined) {
    args.push(...launcherArgs(input), ...input.argv);
    return args;
  }
  args.push(...limitArgs(input));
  if (input.mode === "privileged") {
    if (input.setpriv === undefined || input.envTool === undefined)
      throw new DistDebugError({
        code: "INTERNAL",
        message:
          "bwrap arguments for privileged mode need the host's setpriv and env paths (probeSandbox finds them); pass both",
      });
    args.push(
      input.setpriv,
      `--reuid=${policy.user.uid}`,
      `--regid=${policy.user.gid}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "--",
      input.envTool,
      "-i",
      ...Object.entries(input.env).map(([name, value]) => `${name}=${value}`),
    );
  }
  args.push(...input.argv);
  return args;
}

/** The launcher's arguments: limits, the uid to drop to (`-` in user-namespace mode), the environment, `--`. */
function launcherArgs(input: BwrapArgsInput): string[] {
  const { limits, user } = input.policy;
  const privileged = input.mode === "privileged";
  const env = Object.entries(input.env).map(([name, value]) => `${name}=${value}`);
  return [
    LAUNCHER_TARGET,
    String(limits.processes),
    String(limits.memoryBytes),
    String(limits.fileSizeBytes),
    privileged ? String(user.uid) : "-",
    privileged ? String(user.gid) : "-",
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
  if (input.launcher !== undefined) targets.push(LAUNCHER_TARGET);
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
    "--core=0",
    "--",
  ];
}
