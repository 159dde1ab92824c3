import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseSummary } from "@distdebug/schema";
import { baselineResults } from "@distdebug/test-fixtures";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

let resultsDir: string;
let cacheDir: string;
let coverage: number;

beforeAll(async () => {
  ({ resultsDir, cacheDir } = await baselineResults("score-gates"));
  const summary = parseSummary(await readFile(join(resultsDir, "summary.json"), "utf8"));
  coverage = (summary.metrics.blockCoverage?.mean ?? Number.NaN) * 100;
}, 300_000);

async function score(...extra: string[]) {
  const io = captureIO();
  const code = await runCli(["score", resultsDir, "--cache-dir", cacheDir, ...extra], io);
  return { code, out: io.out(), err: io.err() };
}

describe("score as a CI gate", () => {
  it("--require-complete: exit 1 with the reason on an incomplete folder, 0 on a complete one", async () => {
    const incomplete = await score("--attempts", "3", "--require-complete");
    expect(incomplete.code).toBe(1);
    expect(incomplete.err).toContain(
      "failed  incomplete: 0 infra errors, 0 interrupted, 1 missing attempts",
    );
    // Without the flag an incomplete folder still exits 0 (the leaderboard notes it).
    expect((await score("--attempts", "3")).code).toBe(0);
    expect((await score("--require-complete")).code).toBe(0);
  });

  it("--fail-under metric=points: exit 1 naming the metric under its floor; met floors pass", async () => {
    // The offline baseline finds none of zklite-142's gold blocks: a mean of 0 points.
    expect(coverage).toBe(0);
    const pass = await score("--fail-under", "blockCoverage=0", "--fail-under", "fileCoverage=0");
    expect(pass.code, pass.err).toBe(0);
    const failed = await score(
      "--fail-under",
      "blockCoverage=0.5",
      "--fail-under",
      "fileCoverage=0",
    );
    expect(failed.code).toBe(1);
    expect(failed.err).toContain("failed  blockCoverage 0.0 is under --fail-under 0.5\n");
    expect(failed.err).not.toContain("fileCoverage");
    const json = await score("--json", "--fail-under", "blockPrecision=20", "--require-complete");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).gateFailures).toEqual([
      "blockPrecision 0.0 is under --fail-under 20",
    ]);
  });

  it.each([
    ["blockCoverag=40", 'unknown metric "blockCoverag" (did you mean blockCoverage?)'],
    ["blockCoverage=140", "expected points from 0 to 100"],
    ["blockCoverage", "expected points from 0 to 100"],
    ["blockCoverage=abc", "expected points from 0 to 100"],
  ])("--fail-under %s is a usage error (exit 2)", async (value, message) => {
    const result = await score("--fail-under", value);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(result.out).toBe("");
  });
});
