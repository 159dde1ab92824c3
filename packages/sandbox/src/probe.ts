import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ResourceEnforcement, SandboxPolicy } from "@distdebug/schema";
import { INSTALL_HINT, USERNS_HINT } from "./errors.js";
import type { SandboxBackendName } from "./events.js";
import { bwrapArgs } from "./internal/bwrap-args.js";
import {
  findExecutable,
  findSystemTool,
  hostRootLayout,
  loadLauncher,
  NO_LAUNCHER,
  pathDirs,
} from "./internal/host.js";
import { runProcess } from "./internal/run-process.js";
import { findMemoryCgroup } from "./memory-budget.js";
import type { SandboxMode } from "./sandbox.js";

/** One backend (and mode) and whether it works here. */
export interface BackendProbe {
  backend: SandboxBackendName;
  mode?: SandboxMode;
  available: boolean;
  /** Why not, when not available. */
  reason?: string;
  /** What to do about it. */
  fix?: string;
  /** True for `no-sandbox`: no isolation at all. */
  unsafe?: boolean;
}

/** What {@link probeSandbox} found. */
export interface SandboxProbe {
  /** The uid of this process (0: root). */
  uid: number;
  bwrapPath?: string;
  bwrapVersion?: string;
  /** `bubblewrap` in `privileged` and `user-namespace` modes, then `no-sandbox`. */
  backends: BackendProbe[];
  /**
   * How attempts' resources are bounded here: `memory` is `cgroup-v2` where a delegated cgroup
   * v2 memory controller can hold attempts (a total per attempt, see `createMemoryBudget`),
   * else as root `sampled-total` (the attempt's uid's memory summed every 250 ms), else
   * `rlimit-per-process` (RLIMIT_AS per process only), `processes`
   * `per-attempt-uid` as root (each attempt leases a uid, see `leaseSandboxUser`) else
   * `shared-uid`, `disk` `tmpfs` as root with `mount` (see `mountDiskBudget`) else `none`.
   */
  resources: ResourceEnforcement;
  /** True when this process sits in a cgroup v2 whose memory controller it may use (delegated). */
  cgroupV2Delegated: boolean;
  /** Why {@link SandboxProbe.cgroupV2Delegated} is false. */
  cgroupV2Reason?: string;
  /** What `createSandbox` with `mode: "auto"` would use, if it works; else undefined. */
  recommended?: { backend: "bubblewrap"; mode: SandboxMode };
}

/** Options of {@link probeSandbox}. */
export interface ProbeSandboxOptions {
  /** Default: `bwrap` on PATH. */
  bwrapPath?: string;
  /** Per trial run. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Tells which sandbox backends work on this host and why not: it looks for bwrap, prlimit and
 * the compiled launcher (needed by the privileged mode), reads the user-namespace sysctls, and runs `true` in each bubblewrap mode.
 *
 * @example
 * ```ts
 * const probe = await probeSandbox();
 * for (const backend of probe.backends) console.log(backend.backend, backend.mode, backend.available, backend.reason);
 * ```
 */
export async function probeSandbox(options: ProbeSandboxOptions = {}): Promise<SandboxProbe> {
  const uid = process.getuid?.() ?? -1;
  const bwrapPath = await findExecutable(options.bwrapPath ?? "bwrap", pathDirs(process.env.PATH));
  const memory = await findMemoryCgroup();
  const probe: SandboxProbe = {
    uid,
    backends: [],
    resources: await resourceEnforcement(uid, "parent" in memory),
    cgroupV2Delegated: "parent" in memory,
    ...("reason" in memory ? { cgroupV2Reason: memory.reason } : {}),
  };
  const unsafe: BackendProbe = { backend: "no-sandbox", available: true, unsafe: true };
  if (bwrapPath === undefined) {
    const reason = `${options.bwrapPath ?? "bwrap"} was not found on PATH`;
    probe.backends.push(
      { backend: "bubblewrap", mode: "privileged", available: false, reason, fix: INSTALL_HINT },
      {
        backend: "bubblewrap",
        mode: "user-namespace",
        available: false,
        reason,
        fix: INSTALL_HINT,
      },
      unsafe,
    );
    return probe;
  }
  probe.bwrapPath = bwrapPath;
  const version = await runProcess({
    file: bwrapPath,
    args: ["--version"],
    env: {},
    timeoutMs: 5000,
    outputBytes: 4096,
    killOutputBytes: 65536,
    statusFd: false,
  });
  const versionText = version.stdout.text().trim();
  if (versionText !== "") probe.bwrapVersion = versionText.replace(/^bubblewrap\s+/, "");
  const workspace = await mkdtemp(join(tmpdir(), "distdebug-probe-"));
  await chmod(workspace, 0o755);
  try {
    for (const mode of ["privileged", "user-namespace"] as const)
      probe.backends.push(
        await probeMode(mode, bwrapPath, workspace, uid, options.timeoutMs ?? 10_000),
      );
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
  probe.backends.push(unsafe);
  const preferred: SandboxMode = uid === 0 ? "privileged" : "user-namespace";
  if (probe.backends.some((entry) => entry.mode === preferred && entry.available))
    probe.recommended = { backend: "bubblewrap", mode: preferred };
  return probe;
}

async function probeMode(
  mode: SandboxMode,
  bwrap: string,
  workspace: string,
  uid: number,
  timeoutMs: number,
): Promise<BackendProbe> {
  const base = { backend: "bubblewrap", mode } as const;
  if (mode === "privileged" && uid !== 0)
    return {
      ...base,
      available: false,
      reason: "needs root (the process runs as uid " + uid + ")",
      fix: "run as root, or use the user-namespace mode",
    };
  const prlimit = await findSystemTool("prlimit");
  if (prlimit === undefined)
    return {
      ...base,
      available: false,
      reason: "prlimit (util-linux) not found",
      fix: "install util-linux",
    };
  const launcher = await loadLauncher();
  if (mode === "privileged" && launcher === undefined)
    return { ...base, available: false, ...NO_LAUNCHER };
  if (mode === "user-namespace") {
    const sysctl = await userNamespaceSysctl();
    if (sysctl !== undefined)
      return { ...base, available: false, reason: sysctl, fix: USERNS_HINT };
  }
  const policy = SandboxPolicy.parse({});
  const args = bwrapArgs({
    policy,
    mode,
    rootLayout: await hostRootLayout(),
    workspace,
    prlimit,
    launcherFd: launcher === undefined ? undefined : 4,
    env: policy.env,
    statusFd: 3,
    argv: ["/bin/sh", "-c", "exit 0"],
  });
  const asUser = mode === "user-namespace" && uid === 0;
  const result = await runProcess({
    file: bwrap,
    args,
    env: {},
    ...(asUser ? { uid: policy.user.uid, gid: policy.user.gid } : {}),
    timeoutMs,
    outputBytes: 8192,
    killOutputBytes: 65536,
    statusFd: true,
    inputFds: launcher === undefined ? [] : [launcher],
  });
  if (result.exitCode === 0 && result.statusExitCode === 0) return { ...base, available: true };
  const detail =
    result.stderr.text().trim().split("\n").slice(-2).join(" | ") ||
    (result.timedOut ? "timed out" : `exit code ${result.exitCode}`);
  return {
    ...base,
    available: false,
    reason: `a trial run failed: ${detail}`,
    fix:
      mode === "user-namespace"
        ? USERNS_HINT
        : "run `distdebug sandbox probe --json` and check the bwrap message",
  };
}

/** A reason when a sysctl turns unprivileged user namespaces off, else undefined. */
async function userNamespaceSysctl(): Promise<string | undefined> {
  const read = async (path: string) => {
    try {
      return (await readFile(path, "utf8")).trim();
    } catch {
      return undefined;
    }
  };
  if ((await read("/proc/sys/kernel/unprivileged_userns_clone")) === "0")
    return "user namespaces are disabled (kernel.unprivileged_userns_clone = 0)";
  if ((await read("/proc/sys/user/max_user_namespaces")) === "0")
    return "user namespaces are disabled (user.max_user_namespaces = 0)";
  if ((await read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")) === "1")
    return "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)";
  return undefined;
}

/** How attempts' resources are bounded on this host (see {@link SandboxProbe.resources}). */
async function resourceEnforcement(uid: number, cgroup: boolean): Promise<ResourceEnforcement> {
  const root = uid === 0;
  return {
    memory: cgroup ? "cgroup-v2" : root ? "sampled-total" : "rlimit-per-process",
    processes: root ? "per-attempt-uid" : "shared-uid",
    disk: root && (await findSystemTool("mount")) !== undefined ? "tmpfs" : "none",
  };
}
