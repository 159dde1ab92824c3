import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAttempt, parseDiagnosisScores } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { cliNodeArgs, repoRoot } from "../testing/spawn-cli.js";

/**
 * Issue 26: one 200 KB symbol cost minutes of scoring (quadratic in its length) on the event
 * loop that also serves running attempts, and `score` hung the same way. On main (a8d8bcd) `run`
 * was still scoring attempt 1 when the 200 s limit stopped it: attempt 1 `succeeded` (scored
 * 0), attempt 2 `interrupted`.
 */
describe("an agent that writes a 200 KB symbol", () => {
  it("gets an invalid diagnosis (agent-error), never a hang, and the attempt beside it is not starved", async () => {
    const work = await testdir();
    const config = {
      name: "symbol-flood",
      agent: {
        type: "command",
        command: ["/opt/node/node", "/opt/agent/symbol-flood.mjs"],
        wallTimeLimitSec: 30,
      },
      environment: {
        sandbox: {
          readOnlyBinds: [
            { source: process.execPath, target: "/opt/node/node" },
            {
              source: join(repoRoot, "packages/runner/fixtures/command-agents"),
              target: "/opt/agent",
            },
          ],
        },
      },
      run: { attempts: 2, concurrency: 2 },
    };
    // JSON is YAML.
    await writeFile(join(work, "flood.yaml"), JSON.stringify(config));
    const cache = join(work, "cache");
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
        cwd: work,
        encoding: "utf8",
        env: { ...process.env, CI: "true" },
        // A hang is a failure, not a stuck suite: the CLI is killed after 200 s.
        timeout: 200_000,
      });
    const dataset = join(repoRoot, "examples/dataset");
    const run = cli([
      "run",
      "--config",
      "flood.yaml",
      "--dataset",
      dataset,
      "--bug",
      "leasekv-77",
      "--out",
      "results",
      "--cache-dir",
      cache,
    ]);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    const attempt = async (n: number) =>
      parseAttempt(await readFile(join(work, `results/leasekv-77/attempt-${n}/attempt.json`)));
    const flood = await attempt(1);
    expect(flood.status).toBe("agent-error");
    expect(flood.error?.message).toMatch(/blocks\[0\]\.symbol.*at most 1000 characters/);
    const beside = await attempt(2);
    expect(beside.status).toBe("succeeded");
    // Scored as usual: the lessor block reaches one of the two gold blocks.
    const scored = parseDiagnosisScores(
      await readFile(join(work, "results/leasekv-77/attempt-2/diagnosis_scores.json")),
    );
    expect(scored.metrics.blockCoverage).toBe(0.5);
    const score = cli(["score", "results", "--cache-dir", cache]);
    expect(score.signal, score.stderr).toBeNull();
    expect(score.status).toBe(0);
    const scores = parseDiagnosisScores(
      await readFile(join(work, "results/leasekv-77/attempt-1/diagnosis_scores.json")),
    );
    expect(scores.valid).toBe(false);
  }, 480_000); // Two sandboxed attempts and a rescoring on a loaded machine; 200 s per CLI call at most.
});
