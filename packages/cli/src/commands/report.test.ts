import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadDataset, runBenchmark, scoreResults } from "@distdebug/runner";
import { parseRunConfig, parseSummary, serialize } from "@distdebug/schema";
import { formatEstimate } from "@distdebug/stats";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

const exampleIncident = new URL("../../../../examples/dataset/zklite-142", import.meta.url)
  .pathname;
let resultsDir: string;
let cacheDir: string;

beforeAll(async () => {
  const datasetDir = await testdir();
  await cp(exampleIncident, join(datasetDir, "zklite-142"), { recursive: true });
  await writeFile(
    join(datasetDir, "dataset.json"),
    serialize({
      format: "distdebug.dataset/1",
      name: "report-test",
      version: "1.0.0",
      incidents: ["zklite-142"],
    }),
  );
  const dataset = await loadDataset(datasetDir);
  cacheDir = await testdir();
  resultsDir = join(await testdir(), "baseline");
  const config = parseRunConfig({
    name: "baseline",
    agent: { type: "baseline", wallTimeLimitSec: 60 },
    run: { attempts: 2 },
  });
  await runBenchmark({ config, dataset, outDir: resultsDir, cacheDir });
  await scoreResults({ outDir: resultsDir, dataset, cacheDir, resamples: 500 });
}, 120_000);

describe("distdebug report", () => {
  it("prints the leaderboard and writes an HTML report with the code of the dataset's workspace", async () => {
    const out = join(await testdir(), "report");
    const io = captureIO({ env: { DISTDEBUG_CACHE_DIR: cacheDir } });
    expect(await runCli(["report", resultsDir, "--out", out], io)).toBe(0);
    const summary = parseSummary(await readFile(join(resultsDir, "summary.json"), "utf8"));
    const lines = io.out().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^configuration\s+incidents\s+block coverage\s+block precision/);
    expect(lines[2]).toMatch(/^baseline\s+1\s/);
    expect(lines[2]).toContain(formatEstimate(summary.metrics.blockCoverage!));
    expect(io.err()).toBe(`report: ${join(out, "index.html")} (3 pages)\n`);
    const index = await readFile(join(out, "index.html"), "utf8");
    expect(index).toContain(
      `<td data-column="block coverage">${formatEstimate(summary.metrics.blockCoverage!)}</td>`,
    );
    const page = await readFile(join(out, "attempts/baseline/zklite-142/attempt-1.html"), "utf8");
    expect(page).toMatch(/<tr class="line gold (hit|miss)/);
    expect(page).not.toContain("Source not available");
  });

  it("prints Markdown, and names a folder without summary.json", async () => {
    const out = join(await testdir(), "report");
    const io = captureIO({ env: { DISTDEBUG_CACHE_DIR: cacheDir } });
    expect(await runCli(["report", resultsDir, "--out", out, "--format", "markdown"], io)).toBe(0);
    expect(io.out()).toMatch(/^\| configuration \| incidents \| block coverage \|/);
    const empty = await testdir({ "run.json": "{}" });
    const failing = captureIO();
    expect(await runCli(["report", empty, "--out", out], failing)).toBe(1);
    expect(failing.err()).toContain(`${empty}/summary.json: no such file; run \`distdebug score`);
  });
});
