import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { SandboxPolicyInput } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import type { SandboxEvent } from "./events.js";
import { truncationMarker } from "./internal/output-buffer.js";
import {
  isRoot,
  processesInPidNamespace,
  processesOfUid,
  waitFor,
} from "./testing/test-support.js";

// A uid of its own, so the host-side listings of this file do not see other test files.
const user = { uid: 61_002, gid: 61_002 };
const MiB = 1024 * 1024;

async function sandboxWith(policy: SandboxPolicyInput, onEvent?: (event: SandboxEvent) => void) {
  const workspace = await testdir();
  const sandbox = await createSandbox({
    workspace,
    policy: { user, ...policy, limits: { timeoutMs: 20_000, ...policy.limits } },
    ...(onEvent ? { onEvent } : {}),
  });
  return { sandbox, workspace };
}

/** The host is healthy: it can still start a process, and nothing of the sandbox user is left. */
async function expectHostHealthy() {
  expect(spawnSync("/bin/true").status).toBe(0);
  expect(await waitFor(() => processesOfUid(user.uid).length === 0, 3000)).toBe(true);
}

describe("bubblewrap abuse containment", () => {
  // The kernel does not enforce RLIMIT_NPROC for uid 0: this needs the privileged path's uid drop.
  it.runIf(isRoot)(
    "contains a (bounded) fork bomb: forks past the process limit fail",
    async () => {
      const { sandbox } = await sandboxWith({ limits: { processes: 16 } });
      // 200 forks, each child sleeping; a containment bug shows as 200 successes, not a hang.
      const result = await sandbox.exec(
        `perl -e 'my ($ok, $failed) = (0, 0); for (1..200) { my $pid = fork(); if (!defined $pid) { $failed++; next } if ($pid == 0) { sleep 30; exit 0 } $ok++ } print "ok=$ok failed=$failed\\n"'`,
      );
      const match = /ok=(\d+) failed=(\d+)/.exec(result.stdout);
      expect(match).not.toBeNull();
      expect(Number(match?.[1])).toBeLessThan(16);
      expect(Number(match?.[2])).toBeGreaterThan(180);
      // The command ended on its own (the sleeping children did not hold it to the timeout)
      // and they died with the sandbox (checked from the host below).
      expect(result.timedOut).toBe(false);
      await expectHostHealthy();
    },
  );

  it("contains a memory hog: an allocation past the address-space limit fails", async () => {
    const { sandbox } = await sandboxWith({ limits: { memoryBytes: 512 * MiB } });
    const hog = await sandbox.exec(
      `perl -e '$x = "a" x (1024 * 1024 * 1024); print "allocated\\n"'`,
    );
    expect(hog.exitCode).not.toBe(0);
    expect(hog.stdout).not.toContain("allocated");
    expect(hog.stderr).toMatch(/Out of memory/i);
    // Control: a small allocation under the same limit works.
    const small = await sandbox.exec(
      `perl -e '$x = "a" x (64 * 1024 * 1024); print "allocated\\n"'`,
    );
    expect(small.stdout).toBe("allocated\n");
    await expectHostHealthy();
  });

  it("contains a disk filler in /tmp at the tmpfs size", async () => {
    const { sandbox } = await sandboxWith({ tmpfsBytes: 8 * MiB });
    const result = await sandbox.exec(
      "head -c 64M /dev/zero > /tmp/fill; echo rc=$?; stat -c %s /tmp/fill",
    );
    expect(result.stderr).toMatch(/No space left on device/);
    expect(result.stdout).toMatch(/rc=[1-9]/);
    const size = Number(result.stdout.trim().split("\n").at(-1));
    expect(size).toBeLessThanOrEqual(8 * MiB);
    await expectHostHealthy();
  });

  it("stops a file past the file-size limit in the workspace and reports it", async () => {
    const { sandbox, workspace } = await sandboxWith({ limits: { fileSizeBytes: MiB } });
    const result = await sandbox.exec("head -c 4M /dev/zero > /workspace/big");
    expect(result.limitHit).toBe("file-size");
    expect(result.exitCode).toBe(153);
    expect(statSync(join(workspace, "big")).size).toBe(MiB);
  });

  it("caps captured output, counts all bytes, and kills an endless printer", async () => {
    const { sandbox } = await sandboxWith({
      limits: { outputBytes: 64 * 1024, killOutputBytes: 32 * MiB },
    });
    const result = await sandbox.exec("yes 'line of output'");
    expect(result.limitHit).toBe("output");
    expect(result.timedOut).toBe(false);
    expect(result.truncated).toBe(true);
    expect(result.stdoutBytes).toBeGreaterThan(32 * MiB);
    expect(result.stdout.length).toBeLessThan(64 * 1024 + 200);
    expect(result.stdout).toContain(truncationMarker(64 * 1024, result.stdoutBytes));
    await expectHostHealthy();
  });

  it("keeps the parent's memory bounded while a command prints a gigabyte", async () => {
    const { sandbox } = await sandboxWith({
      limits: { outputBytes: 64 * 1024, killOutputBytes: 4096 * MiB },
    });
    const before = process.memoryUsage().rss;
    // Piping a gigabyte took over 20 s on a loaded 2-core machine: the timeout is generous so
    // the test checks the memory bound, not the machine's speed.
    const result = await sandbox.exec("head -c 1G /dev/zero; head -c 1M /dev/zero >&2", {
      timeoutMs: 150_000,
    });
    const growth = process.memoryUsage().rss - before;
    expect(result.exitCode).toBe(0);
    expect(result.stdoutBytes).toBe(1024 * MiB);
    expect(result.stderrBytes).toBe(MiB);
    expect(Buffer.byteLength(result.stdout)).toBeLessThan(64 * 1024 + 200);
    expect(growth).toBeLessThan(128 * MiB);
  }, 180_000);

  it("kills the whole tree at the timeout: background, setsid, nohup and daemon children (checked from the host)", async () => {
    let namespace: number | undefined;
    const { sandbox } = await sandboxWith({}, (event) => {
      if (event.type === "command-start") namespace = event.pidNamespace;
    });
    const command =
      "sleep 1000 & setsid sleep 1000 & nohup sleep 1000 >/dev/null 2>&1 & setsid sh -c 'sleep 1000 & sleep 1000' & (perl -e 'fork and exit; setpgrp(0, 0); sleep 1000' &); echo started; sleep 1000";
    const running = sandbox.exec(command, { timeoutMs: 4000 });
    // Control: the children really exist on the host while the command runs.
    const seen = await waitFor(
      () =>
        namespace !== undefined &&
        processesInPidNamespace(namespace).filter((entry) => entry.command.includes("sleep 1000"))
          .length >= 6,
      3500,
    );
    expect(seen).toBe(true);
    const result = await running;
    expect(result.timedOut).toBe(true);
    expect(result.limitHit).toBe("timeout");
    expect(result.exitCode).toBeNull();
    expect(result.stdout).toBe("started\n");
    expect(namespace).toBeGreaterThan(0);
    expect(await waitFor(() => processesInPidNamespace(namespace ?? -1).length === 0, 3000)).toBe(
      true,
    );
    await expectHostHealthy();
  });

  it("kills daemons left behind when a command exits on its own", async () => {
    let namespace: number | undefined;
    const { sandbox } = await sandboxWith({}, (event) => {
      if (event.type === "command-start") namespace = event.pidNamespace;
    });
    const result = await sandbox.exec(
      "setsid sleep 1000 & nohup sleep 1000 >/dev/null 2>&1 & echo bye",
    );
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(namespace).toBeGreaterThan(0);
    expect(await waitFor(() => processesInPidNamespace(namespace ?? -1).length === 0, 3000)).toBe(
      true,
    );
    await expectHostHealthy();
  });

  it("kills the tree and rejects with ABORTED when the signal aborts", async () => {
    const { sandbox } = await sandboxWith({});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(
      sandbox.exec("setsid sleep 1000 & sleep 1000", { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "ABORTED",
    });
    await expectHostHealthy();
  });
});
