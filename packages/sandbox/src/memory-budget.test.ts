import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cgroupV2Folder, testdir } from "@distdebug/test-utils";
import { describe, expect, it, vi } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import { findOwnCgroupDir, ownCgroupDir } from "./internal/cgroup-v2.js";
import { residentBytes } from "./internal/uid-memory.js";
import { createMemoryBudget, findMemoryCgroup } from "./memory-budget.js";
import { leaseSandboxUser } from "./sandbox-user-lease.js";
import { isRoot } from "./testing/test-support.js";

const MiB = 1024 * 1024;
const cgroup2Line = (root: string, point: string) =>
  `35 24 0:30 ${root} ${point} rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate`;

describe("this process's cgroup v2 folder", () => {
  it("joins the 0:: path to the cgroup2 mount (unified, hybrid, and inside a cgroup namespace)", () => {
    const scope = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope";
    expect(ownCgroupDir(`0::${scope}\n`, cgroup2Line("/", "/sys/fs/cgroup"))).toEqual({
      dir: `/sys/fs/cgroup${scope}`,
    });
    const hybrid = `4:memory:/x\n0::/\n`;
    const mounts = `22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n${cgroup2Line("/", "/sys/fs/cgroup/unified")}`;
    expect(ownCgroupDir(hybrid, mounts)).toEqual({ dir: "/sys/fs/cgroup/unified" });
    // A container whose cgroup namespace root is /docker/abc: /proc shows paths below it.
    expect(
      ownCgroupDir("0::/docker/abc/job\n", cgroup2Line("/docker/abc", "/sys/fs/cgroup")),
    ).toEqual({ dir: "/sys/fs/cgroup/job" });
    expect(ownCgroupDir("0::/a b\n", cgroup2Line("/", "/mnt/cg\\040v2"))).toEqual({
      dir: "/mnt/cg v2/a b",
    });
  });

  it("says why when there is none", () => {
    expect(ownCgroupDir("4:memory:/x\n", cgroup2Line("/", "/sys/fs/cgroup"))).toEqual({
      reason: "this process is in no cgroup v2 hierarchy",
    });
    expect(ownCgroupDir("0::/x\n", "")).toEqual({ reason: "no cgroup2 file system is mounted" });
  });
});

describe("createMemoryBudget", () => {
  it("on this host: a cgroup only where the v2 memory controller is usable, else the reason, and nothing created", async () => {
    const own = await findOwnCgroupDir();
    const controllers =
      "dir" in own
        ? await readFile(join(own.dir, "cgroup.controllers"), "utf8").catch(() => "")
        : "";
    const budget = await createMemoryBudget({ bytes: 64 * MiB });
    try {
      if (!/\bmemory\b/.test(controllers)) {
        // This CI host: the memory controller is bound to cgroup v1, which is never touched.
        expect(budget.enforcement).toBe("rlimit-per-process");
        expect(budget.dir).toBeUndefined();
        expect(await findMemoryCgroup()).toEqual({ reason: budget.reason });
        expect(budget.reason).toMatch(/memory controller/);
      } else if (budget.enforcement === "cgroup-v2") {
        expect(await readFile(join(budget.dir!, "memory.max"), "utf8")).toBe(`${64 * MiB}\n`);
      }
    } finally {
      await budget.release();
    }
  });

  it("in a delegated cgroup v2: enables the controller, makes the attempt's cgroup with memory.max, no swap, oom.group", async () => {
    const parent = await cgroupV2Folder(join(await testdir(), "scope"));
    const budget = await createMemoryBudget({ bytes: 512 * MiB, parent });
    expect(budget.enforcement).toBe("cgroup-v2");
    expect(budget.dir).toMatch(new RegExp(`^${parent}/distdebug-${process.pid}-[0-9a-f]{8}$`));
    expect(await readFile(join(parent, "cgroup.subtree_control"), "utf8")).toBe("+memory");
    const read = (name: string) => readFile(join(budget.dir!, name), "utf8");
    expect(await read("memory.max")).toBe(String(512 * MiB));
    expect(await read("memory.swap.max")).toBe("0");
    expect(await read("memory.oom.group")).toBe("1");
    expect(await budget.oomKills()).toBe(0);
    await writeFile(
      join(budget.dir!, "memory.events"),
      "low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 1\n",
    );
    expect(await budget.oomKills()).toBe(2);
    await budget.release();
  });

  it("takes DISTDEBUG_CGROUP_PARENT as the default parent", async () => {
    const parent = await cgroupV2Folder(join(await testdir(), "prepared"));
    vi.stubEnv("DISTDEBUG_CGROUP_PARENT", parent);
    try {
      const budget = await createMemoryBudget({ bytes: MiB });
      expect(budget.dir?.startsWith(`${parent}/distdebug-`)).toBe(true);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("falls back to per-process limits, saying why, without the memory controller or when it cannot be enabled", async () => {
    const noMemory = await cgroupV2Folder(join(await testdir(), "cpu-only"), "cpu pids");
    const plain = await createMemoryBudget({ bytes: MiB, parent: noMemory });
    expect(plain.enforcement).toBe("rlimit-per-process");
    expect(plain.reason).toMatch(
      /memory controller is not available in .*cpu-only \(cgroup\.controllers: cpu pids\)/,
    );
    expect(await readdir(noMemory)).not.toContainEqual(expect.stringMatching(/^distdebug-/));

    const stuck = await cgroupV2Folder(join(await testdir(), "stuck"));
    // A folder where cgroup.subtree_control was: writing "+memory" fails, as EBUSY would.
    await rm(join(stuck, "cgroup.subtree_control"));
    await mkdir(join(stuck, "cgroup.subtree_control"));
    const refused = await createMemoryBudget({ bytes: MiB, parent: stuck });
    expect(refused.enforcement).toBe("rlimit-per-process");
    expect(refused.reason).toMatch(/cannot enable the memory controller .*Delegate=yes/);

    const notCgroup = await createMemoryBudget({ bytes: MiB, parent: await testdir() });
    expect(notCgroup.reason).toMatch(/is not a cgroup v2 folder/);
  });
});

describe.runIf(isRoot)("a sandbox with a cgroup memory budget (real bubblewrap)", () => {
  it("starts each command inside the attempt's cgroup and reports limitHit memory after an oom kill", async () => {
    const workspace = await testdir();
    // The cgroup folder lies in the workspace so the command itself can play the kernel's oom kill.
    const parent = await cgroupV2Folder(join(workspace, "cgroup"));
    const budget = await createMemoryBudget({ bytes: 256 * MiB, parent });
    const sandbox = await createSandbox({ workspace, memoryBudget: budget });
    try {
      const quiet = await sandbox.exec("echo ok");
      expect(quiet.stdout).toBe("ok\n");
      expect(quiet.limitHit).toBeUndefined();
      const joined = (await readFile(join(budget.dir!, "cgroup.procs"), "utf8")).trim();
      expect(joined).toMatch(/^\d+$/);
      const child = budget.dir!.slice(workspace.length);
      const killed = await sandbox.exec(
        `printf 'oom 1\\noom_kill 1\\n' > /workspace${child}/memory.events; exit 137`,
      );
      expect(killed.exitCode).toBe(137);
      expect(killed.limitHit).toBe("memory");
      const after = await sandbox.exec("true");
      expect(after.limitHit).toBeUndefined();
    } finally {
      await sandbox.dispose();
      await budget.release();
    }
  }, 60_000);

  it("refuses a cgroup budget in the user-namespace mode as root", async () => {
    const workspace = await testdir();
    const budget = await createMemoryBudget({
      bytes: MiB,
      parent: await cgroupV2Folder(join(await testdir(), "cg")),
    });
    await expect(
      createSandbox({ workspace, mode: "user-namespace", memoryBudget: budget }),
    ).rejects.toThrow(/user-namespace mode as root/);
  });

  it("without a cgroup, as root: sums the memory of the attempt's uid and kills its processes past the total", async () => {
    const lease = await leaseSandboxUser();
    const budget = await createMemoryBudget({ bytes: 400 * MiB, uid: lease.uid });
    const sandbox = await createSandbox({
      workspace: await testdir(),
      policy: { user: { uid: lease.uid, gid: lease.gid }, limits: { memoryBytes: 400 * MiB } },
      memoryBudget: budget,
    });
    try {
      if (budget.enforcement === "cgroup-v2") return; // a cgroup v2 host: the kernel's job
      expect(budget.enforcement).toBe("sampled-total");
      const small = await sandbox.exec(
        "python3 -c 'b = b\"x\" * (100 << 20); print(len(b) >> 20)'",
      );
      expect(small.stdout).toBe("100\n");
      expect(small.limitHit).toBeUndefined();
      // Three processes of 200 MiB each: each under RLIMIT_AS, together over the total.
      const hog = await sandbox.exec(
        "for i in 1 2 3; do python3 -c 'import time; b = b\"x\" * (200 << 20); time.sleep(30)' & done; wait; echo survived",
      );
      expect(hog.limitHit).toBe("memory");
      expect(hog.stdout).not.toContain("survived");
      expect(await budget.oomKills()).toBeGreaterThan(0);
    } finally {
      await sandbox.dispose();
      await budget.release();
      await lease.release();
    }
  }, 90_000);
});

describe("residentBytes", () => {
  it("counts anonymous and shared memory, not file pages; plain Pss on older kernels", () => {
    const rollup =
      "Rss: 9000 kB\nPss: 5000 kB\nPss_Anon: 1200 kB\nPss_File: 3700 kB\nPss_Shmem: 100 kB\n";
    expect(residentBytes(rollup)).toBe(1300 * 1024);
    expect(residentBytes("Rss: 9000 kB\nPss: 5000 kB\n")).toBe(5000 * 1024);
    expect(residentBytes("")).toBe(0);
  });
});
