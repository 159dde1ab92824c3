import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { cliNodeArgs, repoRoot } from "../testing/spawn-cli.js";

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

/** Starts a shard and kills it after its first finished attempt (a pod evicted midway). */
function killedMidway(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliNodeArgs(), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    let killed = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (!killed && chunk.toString().includes('"attempt-end"')) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.on("exit", () => resolve());
  });
}

describe("shards and merge", () => {
  // Runs the baseline over the example dataset three times over (shards, a restarted shard,
  // the unsharded run): minutes on a loaded 2-core machine.
  it("3 shards as separate processes, one killed and restarted, merge to the unsharded run's summary", {
    timeout: 900_000,
  }, async () => {
    const root = await testdir();
    const cache = join(root, "cache");
    const base = [
      "run",
      "--agent",
      "baseline",
      "--runs",
      "1",
      "--dataset",
      exampleDatasetDir(),
      "--cache-dir",
      cache,
    ];
    const shardArgs = (index: number) => [
      ...base,
      "--shard-count",
      "3",
      "--out",
      join(root, `shard-${index}`),
      "--json",
    ];
    await killedMidway(shardArgs(0), { JOB_COMPLETION_INDEX: "0" });
    for (const index of [0, 1, 2]) {
      const result = cli(shardArgs(index), { JOB_COMPLETION_INDEX: String(index) });
      expect(result.status, result.stderr).toBe(0);
    }
    const runInfo = JSON.parse(await readFile(join(root, "shard-1", "run.json"), "utf8"));
    expect(runInfo.shard).toEqual({ index: 2, count: 3, scheduler: "kubernetes" });

    const merged = join(root, "merged");
    const shards = [0, 1, 2].map((index) => join(root, `shard-${index}`));
    const merge = cli(["merge", ...shards, "--out", merged]);
    expect(merge.status, merge.stderr).toBe(0);
    expect(merge.stderr).toMatch(/11 attempts merged/);
    // Merging again resumes: nothing new, nothing changed.
    expect(cli(["merge", ...shards, "--out", merged]).stderr).toMatch(
      /0 attempts merged, 11 already/,
    );

    const single = join(root, "single");
    expect(cli([...base, "--out", single]).status).toBe(0);
    expect(cli(["score", single]).status).toBe(0);
    const [a, b] = await Promise.all([
      readFile(join(merged, "summary.json"), "utf8"),
      readFile(join(single, "summary.json"), "utf8"),
    ]);
    expect(a).toBe(b);

    // A shard given twice and a missing shard are refused or listed, naming them.
    const twice = cli(["merge", shards[0]!, shards[0]!, "--out", join(root, "twice")]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toMatch(/shard 1\/3 appears twice/);
    const gap = cli(["merge", shards[0]!, shards[1]!, "--out", join(root, "gap")]);
    expect(gap.status).toBe(1);
    expect(gap.stderr).toMatch(/gap: shard 3\/3/);
    const mixed = cli(["merge", shards[0]!, single, "--out", join(root, "mixed")]);
    expect(mixed.status).toBe(1);
    expect(mixed.stderr).toMatch(/mix shard layouts|same attempt is in two/);
  });
});
