import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { type AttemptSandbox, createAttemptSandbox } from "./attempt-sandbox.js";
import { createSandbox } from "./create-sandbox.js";
import { mountDiskBudget, unmountLeftoverDiskBudgets } from "./disk-budget.js";
import type { SandboxEvent } from "./events.js";
import { leaseSandboxUser } from "./sandbox-user-lease.js";
import { isRoot, processesOfUid } from "./testing/test-support.js";

const MiB = 1024 * 1024;
/** Opens an attempt's sandbox on an empty workspace and task. */
async function openEmpty(attempt: AttemptSandbox) {
  await mkdir(attempt.workspaceDir);
  await mkdir(attempt.taskDir);
  return attempt.open();
}

const modes = isRoot ? (["privileged", "user-namespace"] as const) : (["user-namespace"] as const);

describe("per-attempt resources", () => {
  it("warns when no seccomp filter exists for the host's architecture", async () => {
    const arch = Object.getOwnPropertyDescriptor(process, "arch")!;
    const events: SandboxEvent[] = [];
    Object.defineProperty(process, "arch", { ...arch, value: "riscv64" });
    try {
      await createSandbox({ workspace: await testdir(), onEvent: (event) => events.push(event) });
    } finally {
      Object.defineProperty(process, "arch", arch);
    }
    expect(events).toContainEqual({
      type: "sandbox-warn",
      backend: "bubblewrap",
      message: expect.stringMatching(/^no seccomp filter for riscv64: nested user namespaces/),
    });
    const native: SandboxEvent[] = [];
    await createSandbox({ workspace: await testdir(), onEvent: (event) => native.push(event) });
    expect(native).toEqual([]);
  });

  for (const mode of modes)
    it(`refuses nested user namespaces and mounts (${mode})`, async () => {
      const lease = await leaseSandboxUser();
      try {
        const sandbox = await createSandbox({
          workspace: await testdir(),
          mode,
          policy: { user: { uid: lease.uid, gid: lease.gid } },
        });
        for (const command of [
          "unshare -U true",
          "unshare -m true",
          "unshare -Urm mount -t tmpfs x /tmp",
        ]) {
          const result = await sandbox.exec(command);
          expect(result.exitCode, command).not.toBe(0);
          expect(result.stderr, command).toMatch(/unshare failed/);
        }
        const fork = await sandbox.exec("sh -c 'echo child' & wait");
        expect(fork.stdout).toBe("child\n");
      } finally {
        await lease.release();
      }
    }, 60_000);

  it.runIf(isRoot)(
    "applies the same limits with the launcher (privileged) and with prlimit (user-namespace); refuses the privileged mode without the launcher",
    async () => {
      const lease = await leaseSandboxUser();
      const policy = { user: { uid: lease.uid, gid: lease.gid }, limits: { processes: 33 } };
      const command =
        "id -u; id -G; grep -E 'NoNewPrivs' /proc/self/status; grep -E 'processes|file size|open files' /proc/self/limits; unshare -U true || echo refused";
      const outputs: string[] = [];
      try {
        const privileged = await createSandbox({ workspace: await testdir(), policy });
        outputs.push((await privileged.exec(command)).stdout);
        expect((await privileged.exec("grep CapBnd /proc/self/status")).stdout).toMatch(
          /CapBnd:\s+0+\n/,
        );
        process.env.DISTDEBUG_SANDBOX_LAUNCHER = "off";
        await expect(createSandbox({ workspace: await testdir(), policy })).rejects.toMatchObject({
          code: "SANDBOX_UNAVAILABLE",
          message: expect.stringMatching(/compiled launcher .* DISTDEBUG_SANDBOX_LAUNCHER=off/),
        });
        const userNamespace = await createSandbox({
          workspace: await testdir(),
          policy,
          mode: "user-namespace",
        });
        outputs.push((await userNamespace.exec(command)).stdout);
      } finally {
        delete process.env.DISTDEBUG_SANDBOX_LAUNCHER;
        await lease.release();
      }
      expect(outputs[0]).toBe(outputs[1]);
      expect(outputs[0]).toMatch(new RegExp(`^${lease.uid}\n${lease.gid}\n`));
      expect(outputs[0]).toMatch(/NoNewPrivs:\s+1/);
      expect(outputs[0]).toMatch(/Max processes\s+33\s+33/);
      expect(outputs[0]).toMatch(/Max open files\s+4096\s+4096/);
      expect(outputs[0]).toMatch(/refused\n$/);
    },
    60_000,
  );

  it.runIf(isRoot)(
    "gives concurrent attempts their own uid: one's fork loop, holding every process its uid may have, does not starve the other's forks",
    async () => {
      const policy = { limits: { processes: 24, timeoutMs: 120_000 } };
      const hog = await createAttemptSandbox({ dir: await testdir(), policy });
      const other = await createAttemptSandbox({ dir: await testdir(), policy });
      try {
        expect(other.policy.user.uid).not.toBe(hog.policy.user.uid);
        const [hogSandbox, otherSandbox] = await Promise.all([hog, other].map(openEmpty));
        // Bounded: 40 children against a limit of 24 (the rest fail to fork). The children hold
        // their uid's process slots until the test writes /workspace/release (at most 60 s);
        // the parent writes /workspace/holding once its fork loop is done.
        let hogEnded = false;
        const hogging = hogSandbox!
          .exec(
            `perl -e 'my $f = 0; for (1..40) { my $p = fork(); if (!defined $p) { $f++; next } if ($p == 0) { for (1..600) { last if -e "/workspace/release"; select(undef, undef, undef, 0.1) } exit 0 } } open(my $h, ">", "/workspace/holding"); close($h); print "failed $f\\n"; 1 while wait() != -1'`,
          )
          .finally(() => {
            hogEnded = true;
          });
        const holding = join(hog.workspaceDir, "holding");
        while (!existsSync(holding) && !hogEnded) await delay(50);
        expect(existsSync(holding), "the hog's fork loop ended").toBe(true);
        // What the other attempt runs against: every process the hog's uid may have, alive.
        const hogProcesses = processesOfUid(hog.policy.user.uid).length;
        const forks = await otherSandbox!.exec(
          "ok=0; for i in $(seq 5); do (true) && ok=$((ok+1)); done; echo $ok",
        );
        await writeFile(join(hog.workspaceDir, "release"), "");
        const hogResult = await hogging;
        expect(hogResult.stdout).toMatch(/^failed (1[6-9]|[2-3]\d)$/m);
        expect(hogProcesses).toBeGreaterThanOrEqual(policy.limits.processes);
        expect(forks.stderr).toBe("");
        expect(forks.stdout.trim()).toBe("5");
      } finally {
        await hog.release();
        await other.release();
      }
    },
    // Two sandboxes and 40 processes on a loaded 2-core machine; the hog ends within 60 s.
    180_000,
  );

  it.runIf(isRoot)(
    "caps disk growth (limitHit disk) and shows no host path in mountinfo",
    async () => {
      const work = await mkdtemp(join(tmpdir(), "incident-zz-9-"));
      const budget = await mountDiskBudget({ dir: work, bytes: 64 * MiB });
      try {
        expect(budget.enforcement).toBe("tmpfs");
        const sandbox = await createSandbox({
          workspace: work,
          diskBudgets: [budget],
          policy: { limits: { timeoutMs: 30_000 } },
        });
        const info = await sandbox.exec("cat /proc/self/mountinfo");
        expect(info.stdout).toContain(" /workspace ");
        expect(info.stdout).not.toContain(work);
        expect(info.stdout).not.toContain("incident-zz-9");
        const fill = await sandbox.exec("head -c 80000000 /dev/zero > big; echo $?");
        expect(fill.stderr).toMatch(/No space left on device/);
        expect(fill.limitHit).toBe("disk");
        // A process that dies holding the budget leaves it mounted: the leftover sweep unmounts it.
        await mountDiskBudget({ dir: join(work, "nested"), bytes: MiB });
        expect(await unmountLeftoverDiskBudgets(work)).toBe(2);
        expect(await unmountLeftoverDiskBudgets(work)).toBe(0);
      } finally {
        await budget.release();
        await rm(work, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
