import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseIncident, parseSummary } from "@distdebug/schema";
import { formatEstimate } from "@distdebug/stats";
import { baselineResults } from "@distdebug/test-fixtures";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

let resultsDir: string;
let cacheDir: string;

/** A one-incident copy of the example dataset, run twice by the baseline agent and scored. */
beforeAll(async () => {
  ({ resultsDir, cacheDir } = await baselineResults("report-test", await testdir()));
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

  it("shows each incident's title, system and languages from the dataset, and on each attempt page the report and artifacts the agent read", async () => {
    const out = join(await testdir(), "report");
    const io = captureIO({ env: { DISTDEBUG_CACHE_DIR: cacheDir } });
    expect(await runCli(["report", resultsDir, "--out", out, "--format", "none"], io)).toBe(0);
    const example = join(exampleDatasetDir(), "zklite-142");
    const incident = parseIncident(await readFile(join(example, "incident.json"), "utf8"));
    const index = await readFile(join(out, "index.html"), "utf8");
    const row =
      /<div class="incident-sort default" id="by-id-asc"[\s\S]*?(<tr data-incident="zklite-142"[\s\S]*?<\/tr>)/.exec(
        index,
      )![1]!;
    expect(row).toContain(`<td data-column="title" class="text">${incident.title}</td>`);
    expect(row).toContain('<td data-column="system" class="text">zklite</td>');
    expect(row).toContain('<td data-column="languages" class="text">java</td>');
    const page = await readFile(join(out, "attempts/baseline/zklite-142/attempt-1.html"), "utf8");
    expect(page).toContain(`<dd data-fact="title">${incident.title}</dd>`);
    const report = await readFile(join(example, "report.md"), "utf8");
    expect(page).toContain(report.split("\n")[0]);
    for (const artifact of incident.artifacts) {
      expect(page).toContain(`data-path="${artifact.path}"`);
      const firstLine = (await readFile(join(example, artifact.path), "utf8")).split("\n")[0]!;
      expect(page).toContain(
        firstLine
          .replaceAll("&", "&amp;")
          .replaceAll("<", "&lt;")
          .replaceAll(">", "&gt;")
          .replaceAll('"', "&quot;")
          .replaceAll("'", "&#39;"),
      );
    }
  });

  it('says "unknown" for the title, system and languages when the dataset cannot be read', async () => {
    const out = join(await testdir(), "report");
    const io = captureIO({ env: { DISTDEBUG_CACHE_DIR: cacheDir } });
    const missing = join(await testdir(), "no-dataset");
    expect(
      await runCli(
        ["report", resultsDir, "--out", out, "--format", "none", "--dataset", missing],
        io,
      ),
    ).toBe(0);
    expect(io.err()).toContain(`warning: dataset ${missing}: source code not shown`);
    const index = await readFile(join(out, "index.html"), "utf8");
    expect(index).toContain(
      '<td data-column="title" class="text"><span class="unknown">unknown</span></td>',
    );
    const page = await readFile(join(out, "attempts/baseline/zklite-142/attempt-1.html"), "utf8");
    expect(page).toContain('<dd data-fact="title">unknown</dd>');
  });
});
