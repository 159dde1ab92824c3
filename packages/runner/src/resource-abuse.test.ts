import { watch } from "node:fs";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { findMemoryCgroup } from "@distdebug/sandbox";
import { parseRunConfig } from "@distdebug/schema";
import { cgroupV2Folder, exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { runBenchmark } from "./run-benchmark.js";

const agentsDir = new URL("../fixtures/command-agents", import.meta.url).pathname;
const MiB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;
let dataset: Dataset;
let cacheDir: string;

beforeAll(async () => {
  dataset = await loadDataset(exampleDatasetDir());
  cacheDir = await testdir();
});

type AbuseCase = "escape" | "disk" | "trajectory" | "hog" | "fork" | "memory" | "quiet";

/** Runs one attempt per case (concurrently, two at a time) through runBenchmark. */
async function runAbuse(cases: AbuseCase[]) {
  const config = parseRunConfig({
    name: "resource-abuse",
    agent: {
      type: "command",
      command: ["python3", "/opt/agent/resource-abuse.py", JSON.stringify(cases)],
      wallTimeLimitSec: 60,
    },
    environment: {
      sandbox: {
        readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }],
        limits: { processes: 24, diskBytes: 64 * MiB, memoryBytes: 768 * MiB, timeoutMs: 60_000 },
      },
    },
    run: { attempts: cases.length, concurrency: 2 },
  });
  const outDir = join(await testdir(), "results");
  const result = await runBenchmark({
    config,
    dataset,
    incidents: dataset.incidents.filter((incident) => incident.id === "leasekv-77"),
    outDir,
    cacheDir,
    env: {},
  });
  const seen = async (index: number): Promise<Record<string, unknown>> => {
    const file = join(outDir, "leasekv-77", `attempt-${index + 1}`, "diagnosis.json");
    return JSON.parse(JSON.parse(await readFile(file, "utf8")).summary);
  };
  return { result, outDir, seen };
}

describe.runIf(isRoot)("an attempt's resources, attacked by a command agent", () => {
  it("refuses nested namespaces and shows no host path or incident id in mountinfo; concurrent attempts do not starve each other's forks", async () => {
    const { result, seen } = await runAbuse(["escape", "hog", "fork"]);
    const escaped = await seen(0);
    for (const key of ["unshareUser", "unshareMount", "unshareUserMount"])
      expect((escaped[key] as { code: number }).code, key).not.toBe(0);
    const mountinfo = String(escaped.mountinfo);
    expect(mountinfo).toMatch(/ \/workspace /);
    expect(mountinfo).not.toContain("leasekv-77");
    expect(mountinfo).not.toContain(cacheDir);
    expect(JSON.stringify((await seen(1)).hog)).toMatch(/failed [1-9]/);
    expect((await seen(2)).forkFailures).toBe(0);
    const uids = result.attempts.map((record) => record.sandbox.policy.user.uid);
    expect(new Set(uids).size).toBe(3);
    const cgroup = "parent" in (await findMemoryCgroup());
    for (const record of result.attempts)
      expect(record.sandbox.enforcement).toEqual({
        memory: cgroup ? "cgroup-v2" : "sampled-total",
        processes: "per-attempt-uid",
        disk: "tmpfs",
      });
  }, 240_000);

  it("ends limit-exceeded past the disk budget (limitHit disk), refuses an 80 MiB trajectory, and stops three processes over the attempt's memory total (limitHit memory)", async () => {
    const { result, outDir } = await runAbuse(["disk", "trajectory", "memory"]);
    for (const record of result.attempts.filter((record) => record.attempt <= 2)) {
      expect(record.status).toBe("limit-exceeded");
      expect(record.limitHit).toBe("disk");
      expect(record.error?.message).toMatch(/disk budget/);
    }
    const memory = result.attempts.find((record) => record.attempt === 3);
    expect(memory?.status).toBe("limit-exceeded");
    expect(memory?.limitHit).toBe("memory");
    expect(memory?.error?.message).toMatch(/memory budget together \(768 MiB\) and were killed/);
    const trajectory = join(outDir, "leasekv-77", "attempt-2", "trajectory.json");
    expect((await stat(trajectory)).size).toBeLessThan(MiB);
  }, 240_000);

  it("with a delegated cgroup v2: records cgroup-v2, runs the agent in the attempt's cgroup with memory.max, ends limit-exceeded (memory) on an oom kill", async () => {
    // The memory controller is bound to cgroup v1 on the CI host: a folder laid out like a
    // delegated cgroup v2 stands in (the kernel's enforcement itself cannot be tested here).
    const quietParent = await cgroupV2Folder(join(await testdir(), "quiet"));
    vi.stubEnv("DISTDEBUG_CGROUP_PARENT", quietParent);
    let quiet: Awaited<ReturnType<typeof runAbuse>>;
    try {
      quiet = await runAbuse(["quiet"]);
    } finally {
      vi.unstubAllEnvs();
    }
    const [record] = quiet.result.attempts;
    expect(record?.status).toBe("succeeded");
    expect(record?.sandbox.enforcement?.memory).toBe("cgroup-v2");
    const [child] = (await readdir(quietParent)).filter((name) => name.startsWith("distdebug-"));
    expect(child).toBeDefined();
    const cgroup = join(quietParent, child!);
    expect(await readFile(join(cgroup, "memory.max"), "utf8")).toBe(String(768 * MiB));
    expect((await readFile(join(cgroup, "cgroup.procs"), "utf8")).trim()).toMatch(/^\d+$/);

    // The kernel's oom kill, played as soon as the attempt's cgroup exists.
    const killedParent = await cgroupV2Folder(join(await testdir(), "killed"));
    const watcher = watch(killedParent, (_event, name) => {
      if (name?.startsWith("distdebug-"))
        writeFile(join(killedParent, name, "memory.events"), "oom 1\noom_kill 1\n").catch(() => {});
    });
    vi.stubEnv("DISTDEBUG_CGROUP_PARENT", killedParent);
    try {
      const killed = await runAbuse(["quiet"]);
      const [attempt] = killed.result.attempts;
      expect(attempt?.status).toBe("limit-exceeded");
      expect(attempt?.limitHit).toBe("memory");
      expect(attempt?.error?.message).toMatch(/memory budget together \(768 MiB\)/);
    } finally {
      watcher.close();
      vi.unstubAllEnvs();
    }
  }, 240_000);
});
