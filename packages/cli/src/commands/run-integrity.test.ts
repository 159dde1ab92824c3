import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAttempt, parseSummary, serialize } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { cliNodeArgs, repoRoot } from "../testing/spawn-cli.js";

function cli(args: string[], cwd: string) {
  return spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
}

async function readAttempt(outDir: string, incidentId: string, attempt: number) {
  const path = join(outDir, incidentId, `attempt-${attempt}`, "attempt.json");
  return { path, record: parseAttempt(await readFile(path, "utf8")) };
}

describe("a run never discards or silently invalidates finished attempts", () => {
  it("the README's one-incident command after a demo-like run keeps every attempt counting", {
    timeout: 300_000,
  }, async () => {
    const work = await testdir();
    const cache = join(work, "cache");
    const config = join(repoRoot, "configs/baseline/default.yaml");
    const demo = cli(
      [
        "run",
        "--config",
        config,
        "--bug",
        "zklite-142",
        "--bug",
        "raftkv-311",
        "--runs",
        "2",
        "--out",
        "results/baseline",
        "--cache-dir",
        cache,
      ],
      work,
    );
    expect(demo.stderr).toContain("4 attempts run, 0 reused");
    expect(demo.status).toBe(0);
    const before = await readFile(join(work, "results/baseline/zklite-142/attempt-1/attempt.json"));

    // README: `distdebug run --agent baseline --bug zklite-142 --runs 1` (the built-in config).
    const readme = cli(
      ["run", "--agent", "baseline", "--bug", "zklite-142", "--runs", "1", "--cache-dir", cache],
      work,
    );
    expect(readme.stderr).toContain("0 attempts run, 1 reused");
    expect(readme.stderr).not.toMatch(/warning/);
    expect(readme.status).toBe(0);
    expect(
      await readFile(join(work, "results/baseline/zklite-142/attempt-1/attempt.json")),
    ).toEqual(before);

    const score = cli(["score", "results/baseline", "--cache-dir", cache], work);
    expect(score.status).toBe(0);
    expect(score.stderr).not.toMatch(/another config/);
    const summary = parseSummary(
      await readFile(join(work, "results/baseline/summary.json"), "utf8"),
    );
    expect(summary.counts.attempts).toBe(4);
    expect(summary.complete).toBe(true);

    // Another version of the config is refused, naming --out and --redo; nothing is touched.
    const changed = cli(
      ["run", "--config", config, "--set", "agent.rowBudget=10", "--bug", "zklite-142"].concat([
        "--runs",
        "1",
        "--out",
        "results/baseline",
        "--cache-dir",
        cache,
      ]),
      work,
    );
    expect(changed.status).not.toBe(0);
    expect(changed.stderr).toMatch(/RESULTS_CONFLICT|another version of the configuration/);
    expect(changed.stderr).toMatch(/--out/);
    expect(changed.stderr).toMatch(/--redo/);
    expect(
      await readFile(join(work, "results/baseline/zklite-142/attempt-1/attempt.json")),
    ).toEqual(before);
  });

  it("keeps infra-error attempts on resume: run exits 1 and score says incomplete until --rerun-infra", {
    timeout: 300_000,
  }, async () => {
    const work = await testdir();
    const cache = join(work, "cache");
    const args = ["run", "--agent", "baseline", "--bug", "zklite-142", "--runs", "1"];
    const outDir = join(work, "results/baseline");
    expect(cli([...args, "--cache-dir", cache], work).status).toBe(0);
    // What a harness fault leaves: the attempt recorded as infra-error (its inputs unchanged).
    const { path, record } = await readAttempt(outDir, "zklite-142", 1);
    const { metrics: _, ...rest } = record;
    await writeFile(
      path,
      serialize({
        ...rest,
        status: "infra-error",
        error: { code: "CLONE_FAILED", message: "simulated harness fault" },
      }),
    );

    const resumed = cli([...args, "--cache-dir", cache], work);
    expect(resumed.status).toBe(1);
    expect(resumed.stderr).toContain("0 attempts run, 1 reused");
    expect(resumed.stderr).toMatch(/infra-error.*kept/);
    expect(resumed.stderr).toMatch(/incomplete; rerun them with --rerun-infra/);
    expect((await readAttempt(outDir, "zklite-142", 1)).record.status).toBe("infra-error");

    const incomplete = cli(["score", "results/baseline", "--cache-dir", cache], work);
    expect(incomplete.stdout).toMatch(/incomplete \(1 infra errors/);
    const summary = parseSummary(await readFile(join(outDir, "summary.json"), "utf8"));
    expect(summary.complete).toBe(false);
    expect(summary.counts.infraErrors).toBe(1);

    const rerun = cli([...args, "--rerun-infra", "--cache-dir", cache], work);
    expect(rerun.stderr).toContain("1 attempts run, 0 reused");
    expect(rerun.status).toBe(0);
    expect((await readAttempt(outDir, "zklite-142", 1)).record.status).toBe("succeeded");
    const complete = cli(["score", "results/baseline", "--cache-dir", cache], work);
    expect(complete.stdout).not.toMatch(/incomplete/);
    expect(parseSummary(await readFile(join(outDir, "summary.json"), "utf8")).complete).toBe(true);
  });
});
