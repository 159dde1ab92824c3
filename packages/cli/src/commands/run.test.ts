import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  parseAttempt,
  parseDiagnosis,
  parseDiagnosisScores,
  parseSummary,
  parseTrajectory,
} from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { cliNodeArgs, repoRoot } from "../testing/spawn-cli.js";

const BUGS = ["--bug", "zklite-142", "--bug", "raftkv-311"];

function cli(args: string[], cwd: string) {
  return spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
}

function startCli(args: string[], cwd: string): ChildProcess {
  return spawn(process.execPath, [...cliNodeArgs(), ...args], { cwd, stdio: "ignore" });
}

/** After a kill: every attempt folder that exists is whole (attempt.json valid, outputs match their hashes). */
async function checkNothingHalf(outDir: string): Promise<number> {
  let whole = 0;
  let incidents: string[];
  try {
    incidents = (await readdir(outDir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return 0;
  }
  for (const incident of incidents) {
    for (const name of await readdir(join(outDir, incident))) {
      if (!name.startsWith("attempt-")) continue;
      const dir = join(outDir, incident, name);
      const record = parseAttempt(await readFile(join(dir, "attempt.json"), "utf8"));
      for (const [file, hash] of Object.entries(record.outputs)) {
        expect(
          createHash("sha256")
            .update(await readFile(join(dir, file)))
            .digest("hex"),
          `${dir}/${file}`,
        ).toBe(hash);
      }
      whole += 1;
    }
  }
  return whole;
}

/** Every attempt folder of a results dir, each checked whole: all files present and valid. */
async function checkResults(outDir: string, attempts: number): Promise<string[]> {
  const found: string[] = [];
  for (const incident of (await readdir(outDir, { withFileTypes: true })).filter((entry) =>
    entry.isDirectory(),
  )) {
    const names = await readdir(join(outDir, incident.name));
    // No staging folder survives a finished run.
    expect(names.filter((name) => name.startsWith("."))).toEqual([]);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const dir = join(outDir, incident.name, `attempt-${attempt}`);
      const record = parseAttempt(await readFile(join(dir, "attempt.json"), "utf8"));
      expect(record.status).toBe("succeeded");
      parseDiagnosis(await readFile(join(dir, "diagnosis.json")));
      parseTrajectory(await readFile(join(dir, "trajectory.json")));
      parseDiagnosisScores(await readFile(join(dir, "diagnosis_scores.json")));
      found.push(`${incident.name}/${attempt}`);
    }
  }
  return found.sort();
}

describe("distdebug run and score (real processes)", () => {
  it("runs the baseline through the CLI, then score prints the leaderboard row and writes summary.json", async () => {
    const work = await testdir();
    const cache = join(work, "cache");
    const run = cli(
      [
        "run",
        "--agent",
        "baseline",
        ...BUGS,
        "--runs",
        "2",
        "--out",
        "results/baseline",
        "--cache-dir",
        cache,
      ],
      work,
    );
    expect(run.stderr).toContain("attempts run");
    expect(run.status).toBe(0);
    const score = cli(["score", "results/baseline", "--attempts", "2", "--cache-dir", cache], work);
    expect(score.status).toBe(0);
    const summary = parseSummary(
      await readFile(join(work, "results/baseline/summary.json"), "utf8"),
    );
    expect(summary.counts.attempts).toBe(summary.counts.incidents * 2);
    const lines = score.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^configuration\s+incidents\s+block coverage\s+block precision\s+file coverage\s+localization gap\s+tokens\/run\s+cost\/run\s+failed$/,
    );
    const coverage = summary.metrics.blockCoverage!;
    const shown = `${(coverage.mean * 100).toFixed(1)} [${(coverage.low * 100).toFixed(1)}, ${(coverage.high * 100).toFixed(1)}]`;
    expect(lines[2]).toContain(shown);
    expect(lines[2]).toMatch(/^baseline\s/);
  });

  // Opt-in (DISTDEBUG_CRASH_TEST=1): in the full suite it ran past 10 minutes here; see issue 8's note.
  it.runIf(process.env.DISTDEBUG_CRASH_TEST === "1")(
    "survives SIGKILL at 20 points: every attempt complete exactly once, same summary as an uninterrupted run",
    async () => {
      const work = await testdir();
      const cache = join(work, "cache");
      const args = [
        "run",
        "--agent",
        "baseline",
        ...BUGS,
        "--runs",
        "2",
        "--concurrency",
        "2",
        "--cache-dir",
        cache,
      ];
      const clean = cli([...args, "--out", "clean"], work);
      expect(clean.status).toBe(0);
      const started = Date.now();
      cli([...args, "--out", "timing", "--redo"], work);
      const full = Date.now() - started;
      // A seeded walk over kill times spread across a whole run (startup included).
      let seed = 7;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      for (let point = 0; point < 20; point++) {
        // Every other run redoes finished attempts, so kills also land while one is replaced.
        const child = startCli(
          [...args, "--out", "crashed", ...(point % 2 === 1 ? ["--redo"] : [])],
          work,
        );
        const delay = Math.round(full * (0.25 + 0.75 * random()));
        await new Promise((resolve) => setTimeout(resolve, delay));
        child.kill("SIGKILL");
        await new Promise((resolve) => child.once("exit", resolve));
        await checkNothingHalf(join(work, "crashed"));
      }
      const resumed = cli([...args, "--out", "crashed"], work);
      expect(resumed.status).toBe(0);
      const crashed = await checkResults(join(work, "crashed"), 2);
      expect(crashed).toEqual(await checkResults(join(work, "clean"), 2));
      const a = cli(["score", "clean", "--cache-dir", cache, "--json"], work);
      const b = cli(["score", "crashed", "--cache-dir", cache, "--json"], work);
      const summaryA = JSON.parse(a.stdout).summary;
      const summaryB = JSON.parse(b.stdout).summary;
      expect(summaryB.metrics).toEqual(summaryA.metrics);
      expect(summaryB.counts).toEqual(summaryA.counts);
    },
    600_000,
  );

  it("stops on SIGINT: exit non-zero, finished attempts kept, the rest marked interrupted or absent", async () => {
    const work = await testdir();
    const cache = join(work, "cache");
    const child = spawn(
      process.execPath,
      [
        ...cliNodeArgs(),
        "run",
        "--agent",
        "baseline",
        "--runs",
        "3",
        "--out",
        "out",
        "--cache-dir",
        cache,
      ],
      {
        cwd: work,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (/attempt 1: succeeded/.test(stderr)) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
    });
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(130);
    expect(stderr).toContain("interrupted: finished attempts are kept");
    expect(repoRoot).toBeTruthy();
  }, 120_000);
});
