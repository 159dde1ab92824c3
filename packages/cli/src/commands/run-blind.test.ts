import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_LANGUAGES } from "@distdebug/evaluator";
import { parseSummary } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { cliNodeArgs, repoRoot } from "../testing/spawn-cli.js";

/**
 * Blind strategies (bench/evaluator/blind-agent.mjs) as `command` agents through the real
 * `distdebug run` and `distdebug score` on the whole example dataset: naming code without
 * reading the report must not buy coverage (issue 17: at most 10 on the 0-100 scale).
 */
describe("blind strategies through distdebug run earn at most 10 mean block coverage", () => {
  it.each(["stride", "tiles"])(
    "%s",
    async (strategy) => {
      const work = await testdir();
      const config = {
        name: `blind-${strategy}`,
        agent: {
          type: "command",
          command: [
            "/opt/blind/node",
            "/opt/blind/blind-agent.mjs",
            strategy,
            Object.keys(DEFAULT_LANGUAGES).join(","),
          ],
          wallTimeLimitSec: 60,
        },
        environment: {
          sandbox: {
            readOnlyBinds: [
              { source: process.execPath, target: "/opt/blind/node" },
              {
                source: join(repoRoot, "bench/evaluator/blind-agent.mjs"),
                target: "/opt/blind/blind-agent.mjs",
              },
            ],
          },
        },
        run: { attempts: 1, concurrency: 2 },
      };
      // JSON is YAML.
      await writeFile(join(work, "blind.yaml"), JSON.stringify(config));
      const cli = (args: string[]) =>
        spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
          cwd: work,
          encoding: "utf8",
          env: { ...process.env, CI: "true" },
        });
      const cache = join(work, "cache");
      const dataset = join(repoRoot, "examples/dataset");
      const run = cli([
        "run",
        "--config",
        "blind.yaml",
        "--dataset",
        dataset,
        "--out",
        "results",
        "--cache-dir",
        cache,
      ]);
      expect(run.stderr).toContain("11 attempts run, 0 reused");
      expect(run.status).toBe(0);
      const score = cli(["score", "results", "--cache-dir", cache]);
      expect(score.status).toBe(0);
      const summary = parseSummary(await readFile(join(work, "results/summary.json"), "utf8"));
      expect(summary.counts.incidents).toBe(11);
      expect(summary.counts.failedAttempts).toBe(0);
      const coverage = summary.metrics.blockCoverage?.mean ?? Number.NaN;
      expect(
        coverage,
        `${strategy}: mean block coverage ${(100 * coverage).toFixed(1)}`,
      ).toBeLessThanOrEqual(0.1);
    },
    600_000,
  );
});
