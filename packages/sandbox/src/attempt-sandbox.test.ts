import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { cgroupV2Folder, testdir } from "@distdebug/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type AttemptSandbox,
  type CreateAttemptSandboxOptions,
  createAttemptSandbox,
} from "./attempt-sandbox.js";
import { isRoot } from "./testing/test-support.js";

const MiB = 1024 * 1024;
const run = promisify(execFile);

/** Opens an attempt's sandbox on a workspace with one file and an empty task. */
async function openWith(
  attempt: AttemptSandbox,
  options: Parameters<AttemptSandbox["open"]>[0] = {},
) {
  await mkdir(attempt.workspaceDir);
  await writeFile(join(attempt.workspaceDir, "main.go"), "package main\n");
  await mkdir(attempt.taskDir);
  return attempt.open(options);
}

/** The mount points of tmpfs `distdebug` mounts at or under `dir`. */
async function diskBudgetMounts(dir: string): Promise<string[]> {
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8");
  return mountinfo
    .split("\n")
    .filter((line) => / - tmpfs distdebug /.test(line))
    .map((line) => line.split(" ")[4] ?? "")
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
}

const held: AttemptSandbox[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const attempt of held.splice(0)) await attempt.release();
});

async function attemptSandbox(policy: NonNullable<CreateAttemptSandboxOptions["policy"]>) {
  const attempt = await createAttemptSandbox({ dir: join(await testdir(), "work"), policy });
  held.push(attempt);
  return attempt;
}

describe("createAttemptSandbox", () => {
  it("with the no-sandbox backend holds no uid and no budget, and says so", async () => {
    const attempt = await attemptSandbox({ backend: "no-sandbox" });
    expect(attempt.policy.user).toEqual({ uid: 65534, gid: 65534 });
    expect(attempt.enforcement).toEqual({
      memory: "rlimit-per-process",
      processes: "shared-uid",
      disk: "none",
    });
    expect((await stat(attempt.gatewayDir)).mode & 0o777).toBe(0o700);
    const sandbox = await openWith(attempt);
    expect((await sandbox.exec("cat main.go")).stdout).toBe("package main\n");
    expect(await attempt.limitHit()).toBeUndefined();
    await expect(attempt.open()).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await attempt.release();
    expect(existsSync(attempt.gatewayDir)).toBe(false);
  });

  it.runIf(isRoot)(
    "as root: a uid of its own per attempt, tmpfs budgets on the work folder and /output; past the disk budget a command and the attempt both say disk; release gives everything back",
    async () => {
      const policy = { limits: { diskBytes: 8 * MiB, timeoutMs: 60_000 } };
      const attempt = await attemptSandbox(policy);
      const other = await attemptSandbox(policy);
      expect(attempt.policy.user.uid).not.toBe(other.policy.user.uid);
      expect(attempt.policy.user.uid).toBeGreaterThanOrEqual(1_500_000_000);
      expect(attempt.enforcement).toMatchObject({ processes: "per-attempt-uid", disk: "tmpfs" });
      const work = join(attempt.workspaceDir, "..");
      expect((await diskBudgetMounts(work)).sort()).toEqual([work, attempt.outputDir]);
      const gateway = await stat(attempt.gatewayDir);
      expect([gateway.mode & 0o777, gateway.uid]).toEqual([0o700, attempt.policy.user.uid]);

      const sandbox = await openWith(attempt);
      expect((await sandbox.exec("id -u")).stdout.trim()).toBe(String(attempt.policy.user.uid));
      // 8 MiB of growth once opened: 16 MiB fails with ENOSPC.
      const fill = await sandbox.exec("head -c 16000000 /dev/zero > big");
      expect(fill.stderr).toMatch(/No space left on device/);
      expect(fill.limitHit).toBe("disk");
      expect(await attempt.limitHit()).toEqual({
        limit: "disk",
        message: "the attempt wrote past its disk budget (workspace growth 8 MiB, /output 34 MiB)",
      });
      // The other attempt's budget is its own.
      await openWith(other);
      expect(await other.limitHit()).toBeUndefined();

      await attempt.release();
      await attempt.release();
      expect(await diskBudgetMounts(work)).toEqual([]);
      expect(existsSync(attempt.gatewayDir)).toBe(false);
      await expect(sandbox.exec("true")).rejects.toMatchObject({ code: "SANDBOX_ERROR" });
    },
    120_000,
  );

  it.runIf(isRoot)(
    "as root: a socket in the gateway folder reaches the attempt's commands, and no other uid",
    async () => {
      const attempt = await attemptSandbox({ network: "gateway" });
      const other = await attemptSandbox({});
      const socket = join(attempt.gatewayDir, "gateway.sock");
      const server: Server = createServer((connection) => connection.end("hello\n"));
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      try {
        // As the gateway restricts its socket: mode 0600, the attempt's uid's.
        await chmod(socket, 0o600);
        await chown(socket, attempt.policy.user.uid, attempt.policy.user.gid);
        const connect =
          "perl -MIO::Socket::UNIX -e 'my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die \"refused: $!\\n\"; print scalar <$s>'";
        const sandbox = await openWith(attempt, { gateway: socket });
        const inside = await sandbox.exec(`${connect} "$DISTDEBUG_GATEWAY_SOCKET"`);
        expect(inside.stdout).toBe("hello\n");
        // The other attempt's uid, on the host, with the socket's host path.
        const uid = String(other.policy.user.uid);
        const outside = await run("setpriv", [
          `--reuid=${uid}`,
          `--regid=${uid}`,
          "--clear-groups",
          "sh",
          "-c",
          `${connect} "$0" 2>&1 || true`,
          socket,
        ]);
        expect(outside.stdout).toMatch(/^refused: Permission denied/);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
    60_000,
  );

  it("in a delegated cgroup v2: the attempt's cgroup holds memory.max; an oom kill makes limitHit memory", async () => {
    // The memory controller is bound to cgroup v1 on the CI host: a folder laid out like a
    // delegated cgroup v2 stands in (the kernel's enforcement itself cannot be tested here).
    const parent = await cgroupV2Folder(join(await testdir(), "cgroup"));
    vi.stubEnv("DISTDEBUG_CGROUP_PARENT", parent);
    const attempt = await attemptSandbox({ limits: { memoryBytes: 768 * MiB } });
    expect(attempt.enforcement.memory).toBe("cgroup-v2");
    const [cgroup] = (await readdir(parent)).filter((name) => name.startsWith("distdebug-"));
    expect(cgroup).toBeDefined();
    expect(await readFile(join(parent, cgroup!, "memory.max"), "utf8")).toBe(String(768 * MiB));
    expect(await attempt.limitHit()).toBeUndefined();
    await writeFile(join(parent, cgroup!, "memory.events"), "oom 1\noom_kill 1\n");
    expect(await attempt.limitHit()).toEqual({
      limit: "memory",
      message:
        "the attempt's processes used their memory budget together (768 MiB) and were killed",
    });
  });
});
