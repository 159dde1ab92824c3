import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { parseRunConfig } from "@distdebug/schema";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
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

type AbuseCase = "escape" | "disk" | "trajectory" | "hog" | "fork";

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
        limits: { processes: 24, diskBytes: 64 * MiB, timeoutMs: 60_000 },
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
    for (const record of result.attempts)
      expect(record.sandbox.enforcement).toEqual({
        memory: "rlimit-per-process",
        processes: "per-attempt-uid",
        disk: "tmpfs",
      });
  }, 240_000);

  it("ends limit-exceeded (limitHit disk) past the disk budget, and refuses an 80 MiB trajectory", async () => {
    const { result, outDir } = await runAbuse(["disk", "trajectory"]);
    for (const record of result.attempts) {
      expect(record.status).toBe("limit-exceeded");
      expect(record.limitHit).toBe("disk");
      expect(record.error?.message).toMatch(/disk budget/);
    }
    const trajectory = join(outDir, "leasekv-77", "attempt-2", "trajectory.json");
    expect((await stat(trajectory)).size).toBeLessThan(MiB);
  }, 240_000);
});
