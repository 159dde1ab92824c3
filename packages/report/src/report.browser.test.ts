import { existsSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { formatEstimate } from "@distdebug/stats";
import { repoPath, testdir } from "@distdebug/test-utils";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forestPlotSvg } from "./forest-plot.js";
import { leaderboardRow } from "./leaderboard.js";
import { loadResults } from "./load-results.js";
import { writeResultsFixture } from "./testing/results-fixture.js";
import { writeReport } from "./write-report.js";

/** Screenshots land here (gitignored), for people to look at. */
const artifacts = repoPath("test-artifacts/report/");

let context: BrowserContext;

const executablePath = process.env.DISTDEBUG_CHROMIUM ?? "/usr/bin/chromium";

beforeAll(async () => {
  if (!existsSync(executablePath))
    throw new Error(
      `${executablePath}: no Chromium; run bash scripts/setup-browser.sh (or set DISTDEBUG_CHROMIUM)`,
    );
  await mkdir(artifacts, { recursive: true });
  context = await chromium.launchPersistentContext(
    await mkdtemp(join(tmpdir(), "distdebug-chromium-")),
    {
      executablePath,
      headless: true,
      offline: true,
      viewport: { width: 1280, height: 900 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  );
});

afterAll(async () => {
  await context?.close();
});

describe("the HTML report in headless Chromium", () => {
  it("opens from disk with the summary's figures, a trajectory and the gold highlight, without network or console errors", async () => {
    const results = await testdir();
    const { summary, sources } = await writeResultsFixture(results, { name: "fixture-config" });
    const outDir = join(await testdir(), "report");
    const { index } = await writeReport({ results: [await loadResults(results)], outDir, sources });

    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("request", (request) => requests.push(request.url()));

    await page.goto(pathToFileURL(index).href);
    const row = page.locator('table.leaderboard tr[data-config="fixture-config"]');
    const cell = (column: string) => row.locator(`[data-column="${column}"]`).textContent();
    const expected = leaderboardRow(summary);
    expect(await cell("block coverage")).toBe(formatEstimate(summary.metrics.blockCoverage!));
    expect(await cell("block precision")).toBe(formatEstimate(summary.metrics.blockPrecision!));
    expect(await cell("file coverage")).toBe(formatEstimate(summary.metrics.fileCoverage!));
    expect(await cell("localization gap")).toBe(formatEstimate(summary.localizationGap!));
    expect(await cell("tokens/run")).toBe(expected["tokens/run"]);
    expect(await cell("failed")).toBe(
      `${summary.counts.failedAttempts}/${summary.counts.attempts}`,
    );
    expect(await page.locator("svg.forest-plot .whisker").count()).toBeGreaterThan(0);
    // Plots take the content's full width (they were 720 px wide, a third of a wide page).
    const plot = await page.locator("svg.forest-plot").first().boundingBox();
    // A heading is a block as wide as the page's content.
    const heading = await page.locator("h2").first().boundingBox();
    const plotWidth = plot?.width ?? 0;
    const contentWidth = heading?.width ?? Number.POSITIVE_INFINITY;
    expect(plotWidth).toBeGreaterThan(contentWidth - 2);
    expect(
      await page.locator('section.panel[data-facet="usableStackTrace"]').textContent(),
    ).toContain("n=");
    await page.screenshot({ path: join(artifacts, "index.png"), fullPage: true });

    await page.click('a.attempt-link[data-incident="alpha-1"][data-attempt="1"]');
    await page.waitForURL(/attempt-1\.html$/);
    expect(await page.locator("h1").textContent()).toBe("alpha-1 attempt 1");
    const hitLines = await page
      .locator('figure[data-path="src/Server.java"] tr.gold.hit')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute("data-line"))));
    expect(hitLines).toEqual([10, 11, 12, 13, 14]);
    const background = await page
      .locator('tr.gold.hit[data-line="10"] td')
      .last()
      .evaluate(
        (cell) =>
          (
            globalThis as unknown as {
              getComputedStyle(element: unknown): { backgroundColor: string };
            }
          ).getComputedStyle(cell).backgroundColor,
      );
    expect(background).toBe("rgb(201, 242, 199)");
    expect(await page.locator(".gold-block.hit").textContent()).toContain(
      "the lock is released too early",
    );
    expect(await page.locator(".step.command").count()).toBe(2);
    expect(await page.locator(".step.command pre.command-text").first().textContent()).toBe(
      "$ grep -rn lock /workspace/src",
    );
    expect(await page.locator(".step.command pre.output").first().textContent()).toContain(
      "<b>not bold</b>",
    );
    await page.screenshot({ path: join(artifacts, "attempt-hit.png"), fullPage: true });

    await page.goBack();
    await page.click('a.attempt-link[data-incident="alpha-1"][data-attempt="2"]');
    await page.waitForURL(/attempt-2\.html$/);
    expect(await page.locator("tr.gold.miss").count()).toBe(5);
    expect(
      await page
        .locator("tr.pred-wrong")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-line"))),
    ).toEqual(["20", "21", "22"]);
    await page.screenshot({ path: join(artifacts, "attempt-miss.png"), fullPage: true });

    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith("file://"))).toEqual([]);
    await page.close();
  });

  it("sorts the per-incident table by a click on a heading, without a script, and shows what the agent saw as text", async () => {
    const results = await testdir();
    const { sources } = await writeResultsFixture(results, { name: "fixture-config" });
    const outDir = join(await testdir(), "report");
    const { index } = await writeReport({ results: [await loadResults(results)], outDir, sources });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(pathToFileURL(index).href);
    const visible = page.locator(".incident-sort:visible");
    const order = () =>
      visible
        .locator("tbody tr")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-incident")));
    expect(await visible.count()).toBe(1);
    expect(await order()).toEqual(["alpha-1", "beta-2", "gamma-3"]);
    // The table comes before the forest plot.
    const table = await visible.boundingBox();
    const plot = await page.locator("svg.forest-plot").first().boundingBox();
    expect(table!.y).toBeLessThan(plot!.y);

    await visible.locator('th[data-column="block-coverage"] a').click();
    expect(page.url()).toMatch(/#by-block-coverage-desc$/);
    expect(await visible.count()).toBe(1);
    expect(await order()).toEqual(["alpha-1", "gamma-3", "beta-2"]);
    expect(await visible.locator('th[aria-sort="descending"]').textContent()).toBe(
      "block coverage\u25BC",
    );
    await visible.locator('th[data-column="block-coverage"] a').click();
    expect(page.url()).toMatch(/#by-block-coverage-asc$/);
    expect(await order()).toEqual(["beta-2", "alpha-1", "gamma-3"]);
    await visible.locator('th[data-column="duration"] a').click();
    expect(await order()).toEqual(["gamma-3", "alpha-1", "beta-2"]);
    await page.screenshot({ path: join(artifacts, "incidents-by-duration.png"), fullPage: true });
    await page.goBack();
    expect(await order()).toEqual(["beta-2", "alpha-1", "gamma-3"]);

    // Markup in a title is text.
    const title = visible.locator('tr[data-incident="beta-2"] td[data-column="title"]');
    expect(await title.textContent()).toBe("Lease <b>expires</b> before renewal");
    expect(await title.locator("b").count()).toBe(0);

    await visible.locator('tr[data-incident="beta-2"] th[data-column="id"] a').click();
    expect(page.url()).toMatch(/#attempts\/fixture-config\/beta-2$/);
    await page.click('a.attempt-link[data-incident="beta-2"][data-attempt="1"]');
    await page.waitForURL(/beta-2\/attempt-1\.html$/);
    expect(await page.locator('dd[data-fact="title"]').textContent()).toBe(
      "Lease <b>expires</b> before renewal",
    );
    const report = page.locator(".incident-file.report pre");
    expect(await report.isVisible()).toBe(true);
    expect(await report.textContent()).toBe("Leases expire early.\n<img src=x onerror=alert(1)>\n");
    expect(await page.locator('.incident-file[data-path="logs/lease.log"] pre').textContent()).toBe(
      "renew failed <script>alert(2)</script>\n",
    );
    expect(await page.locator("img, script, b").count()).toBe(0);
    await page.screenshot({ path: join(artifacts, "attempt-incident-files.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("ranks two configurations and compares them, paired", async () => {
    const first = await testdir();
    const second = await testdir();
    await writeResultsFixture(first, { name: "config-a" });
    await writeResultsFixture(second, { name: "config-b", seed: 7 });
    const outDir = join(await testdir(), "report");
    const { index } = await writeReport({
      results: [await loadResults(first), await loadResults(second)],
      outDir,
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    await page.goto(pathToFileURL(index).href);
    expect(await page.locator("table.leaderboard tbody tr").count()).toBe(2);
    expect(await page.locator("svg.forest-plot").first().locator(".forest-row").count()).toBe(2);
    expect(await page.locator("table.comparison tbody tr th").textContent()).toBe(
      "config-a \u2212 config-b",
    );
    await page.click('table.leaderboard a[href="#config-config-b"]');
    expect(page.url()).toMatch(/#config-config-b$/);
    await page.screenshot({ path: join(artifacts, "two-configurations.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("draws every forest-plot label inside the figure, however long", async () => {
    const svg = forestPlotSvg({
      title: "Block coverage: usable stack trace",
      rows: [
        "no usable stack trace: grep-agent",
        "usable stack trace: mini-swe-agent-gpt-5.4-with-a-long-name",
        "WIDE MMMM WWWW: Mini-SWE-Agent",
      ].map((label, index) => ({
        label,
        estimate: { mean: 0.5, low: 0.3, high: 0.7 },
        n: 9 + index,
      })),
    });
    const page = await context.newPage();
    await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
    const boxes = await page.locator("svg.forest-plot .forest-row text").evaluateAll((texts) =>
      texts.map((text) => {
        const box = (text as unknown as { getBBox(): { x: number; width: number } }).getBBox();
        return { left: box.x, right: box.x + box.width };
      }),
    );
    const width = await page
      .locator("svg.forest-plot")
      .evaluate((svg) => Number(svg.getAttribute("viewBox")?.split(" ")[2]));
    expect(boxes).toHaveLength(6);
    for (const box of boxes) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(width);
    }
    await page.screenshot({ path: join(artifacts, "forest-plot-long-labels.png") });
    await page.close();
  });
});
