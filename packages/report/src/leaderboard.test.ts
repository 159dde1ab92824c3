import type { Summary } from "@distdebug/schema";
import { formatCostUsd, formatEstimate, formatTokens } from "@distdebug/stats";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { forestPlotSvg } from "./forest-plot.js";
import { formatLeaderboard, leaderboardRow } from "./leaderboard.js";
import { loadResults } from "./load-results.js";
import { comparisonHtml, subgroupPanelsHtml } from "./summary-sections.js";
import { writeResultsFixture } from "./testing/results-fixture.js";

describe("leaderboard", () => {
  it("shows each summary's figures with CIs in text, Markdown and HTML, ranked by block coverage", async () => {
    const strong = (await writeResultsFixture(await testdir(), { name: "strong" })).summary;
    const weak = {
      ...strong,
      name: "weak",
      metrics: {
        ...strong.metrics,
        blockCoverage: { mean: 0.1, low: 0.05, high: 0.2, se: 0.03, n: 3 },
      },
    };
    const row = leaderboardRow(strong);
    expect(row["block coverage"]).toBe(formatEstimate(strong.metrics.blockCoverage!));
    expect(row["tokens/run"]).toBe(formatTokens(strong.usage.tokensPerRun));
    expect(row["cost/run"]).toBe(formatCostUsd(strong.usage.costPerRunUsd));
    expect(row["localization gap"]).toBe(formatEstimate(strong.localizationGap!));
    expect(row.failed).toBe("1/6");

    const text = formatLeaderboard([weak, strong]);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^configuration\s+incidents\s+block coverage/);
    expect(lines[2]).toMatch(/^strong /);
    expect(lines[3]).toMatch(/^weak /);
    expect(lines[3]).toContain("10.0 [5.0, 20.0]");

    const markdown = formatLeaderboard([weak, strong], { format: "markdown" });
    expect(markdown.split("\n")[1]).toBe(
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    expect(markdown).toContain(`| strong | 3 | ${row["block coverage"]} |`);

    const html = formatLeaderboard([strong, weak], { format: "html" });
    expect(html.indexOf('data-config="strong"')).toBeLessThan(html.indexOf('data-config="weak"'));
    expect(html).toContain(`<td data-column="block coverage">${row["block coverage"]}</td>`);
  });

  it("notes an incomplete summary", async () => {
    const { summary } = await writeResultsFixture(await testdir());
    const text = formatLeaderboard([
      { ...summary, complete: false, counts: { ...summary.counts, infraErrors: 2 } },
    ]);
    expect(text).toContain(
      "fixture-config: incomplete (2 infra errors, 0 interrupted, 0 missing attempts)",
    );
  });

  it("shows no estimate (not a zero) for a metric no incident was scored on", async () => {
    const { summary } = await writeResultsFixture(await testdir());
    const none = { mean: 0, low: 0, high: 0, se: 0, n: 0 };
    const row = leaderboardRow({
      ...summary,
      metrics: { ...summary.metrics, blockCoverage: none, blockPrecision: none },
    });
    expect(row["block coverage"]).toBe("-");
    expect(row["block precision"]).toBe("-");
    expect(row["file coverage"]).toBe(formatEstimate(summary.metrics.fileCoverage!));
  });

  it("escapes names in HTML", async () => {
    const { summary } = await writeResultsFixture(await testdir());
    const html = formatLeaderboard([{ ...summary, name: "<script>x</script>" }], {
      format: "html",
    });
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
  });
});

describe("forestPlotSvg", () => {
  it("draws one whisker per row from low to high, sorted by mean, with n", () => {
    const svg = forestPlotSvg({
      title: "Block coverage",
      width: 720,
      rows: [
        { label: "low", estimate: { mean: 0.2, low: 0.1, high: 0.3 }, n: 4 },
        { label: "high", estimate: { mean: 0.8, low: 0.7, high: 0.9 }, n: 5 },
      ],
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.indexOf('data-label="high"')).toBeLessThan(svg.indexOf('data-label="low"'));
    expect(svg).toContain("high (n=5)");
    expect(svg).toContain("80.0 [70.0, 90.0]");
    const whiskers = [
      ...svg.matchAll(/class="whisker" x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)"/g),
    ].map((match) => [Number(match[1]), Number(match[2])]);
    expect(whiskers).toHaveLength(2);
    // plot spans x = 240..560 for 0..1 at width 720: 0.7 -> 464, 0.9 -> 528
    expect(whiskers[0]).toEqual([464, 528]);
    expect(whiskers[1]![0]!).toBeLessThan(whiskers[1]![1]!);
  });

  it("makes the label column as wide as the longest label (none clipped at the left edge)", () => {
    const labels = ["no usable stack trace: grep-agent", "WWW MMM: Mini-SWE-Agent GPT-5.4 (long)"];
    const svg = forestPlotSvg({
      title: "Block coverage: usable stack trace",
      rows: labels.map((label, index) => ({
        label,
        estimate: { mean: 0.5, low: 0.4, high: 0.6 },
        n: 9 + index,
      })),
    });
    const viewBoxWidth = Number(/viewBox="0 0 ([\d.]+) /.exec(svg)![1]);
    const anchors = [...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="end">([^<]+)</g)];
    expect(anchors).toHaveLength(2);
    for (const [, x, text] of anchors) {
      // 12 px system-ui: lowercase letters average about 6.5 px, capitals more.
      expect(Number(x), text).toBeGreaterThanOrEqual(text!.length * 6.5);
    }
    const whiskerStarts = [...svg.matchAll(/class="whisker" x1="([\d.]+)"/g)].map((match) =>
      Number(match[1]),
    );
    for (const start of whiskerStarts) expect(start).toBeGreaterThan(Number(anchors[0]![1]));
    expect(viewBoxWidth).toBeGreaterThanOrEqual(720);
  });

  it("widens the axis to fit negative differences", () => {
    const svg = forestPlotSvg({
      title: "gap",
      rows: [{ label: "a", estimate: { mean: -0.1, low: -0.3, high: 0.1 } }],
    });
    expect(svg).toContain(">-30</text>");
  });
});

describe("loadResults", () => {
  it("reads every attempt and lists missing files", async () => {
    const dir = await testdir();
    await writeResultsFixture(dir);
    const results = await loadResults(dir);
    expect(results.attempts.map((attempt) => `${attempt.incidentId}/${attempt.attempt}`)).toEqual([
      "alpha-1/1",
      "alpha-1/2",
      "beta-2/1",
      "beta-2/2",
      "gamma-3/1",
      "gamma-3/2",
    ]);
    const failed = results.attempts.find(
      (attempt) => attempt.incidentId === "beta-2" && attempt.attempt === 2,
    )!;
    expect(failed.problems).toEqual([`${dir}/beta-2/attempt-2/diagnosis.json: missing`]);
    expect(failed.trajectory?.steps).toHaveLength(4);
  });

  it("asks for distdebug score when summary.json is missing", async () => {
    const dir = await testdir({ "run.json": "{}" });
    await expect(loadResults(dir)).rejects.toThrow(
      /summary.json: no such file; run `distdebug score/,
    );
  });
});

describe("comparisonHtml", () => {
  /** Configuration `b`: `a` with block coverage 0 on every incident. */
  const zeroed = (a: Summary): Summary => ({
    ...a,
    name: "b",
    incidents: a.incidents.map((incident) => ({
      ...incident,
      ...(incident.metrics ? { metrics: { ...incident.metrics, blockCoverage: 0 } } : {}),
    })),
  });
  /** `a` with each incident repeated `times` under new ids. */
  const widened = (a: Summary, times: number): Summary => ({
    ...a,
    incidents: Array.from({ length: times }, (_, copy) =>
      a.incidents.map((incident) => ({ ...incident, id: `${incident.id}-${copy}` })),
    ).flat(),
  });

  it("compares two configurations on their common incidents, paired, with CIs from 5 incidents", async () => {
    const a = widened((await writeResultsFixture(await testdir(), { name: "a" })).summary, 2);
    const html = comparisonHtml([a, zeroed(a)]);
    expect(html).toContain("On the 6 incidents every configuration scored");
    expect(html).toContain(
      `a &minus; b</th><td class="figure">+${(a.metrics.blockCoverage!.mean * 100).toFixed(1)} [`,
    );
    expect(html).toMatch(/a: P\(best\) 100\.0%/);
    expect(html).not.toContain("too few incidents");
    expect(comparisonHtml([a])).toContain("need two or more configurations");
  });

  it("below 5 incidents: the difference with a warning, no CI, no P(delta <= 0), no ranks", async () => {
    const a = (await writeResultsFixture(await testdir(), { name: "a" })).summary;
    const html = comparisonHtml([a, zeroed(a)]);
    expect(html).toContain("On the 3 incidents every configuration scored");
    expect(html).toContain(
      '<p class="warning">Differences only: too few incidents for a confidence interval or P(&#916; &le; 0) (n = 3; at least 5 per side).</p>',
    );
    expect(html).toContain(
      `a &minus; b</th><td class="figure">+${(a.metrics.blockCoverage!.mean * 100).toFixed(1)}</td><td>n/a</td><td>3</td>`,
    );
    expect(html).not.toContain("P(best)");
  });
});

describe("subgroupPanelsHtml", () => {
  it("puts each group's configurations side by side, with n and the yes/no difference", async () => {
    const a = (await writeResultsFixture(await testdir(), { name: "a" })).summary;
    const b = { ...a, name: "b" };
    const html = subgroupPanelsHtml([a, b]);
    const panel = html.slice(
      html.indexOf('data-facet="usableStackTrace"'),
      html.indexOf('data-facet="multipleBlocks"'),
    );
    const labels = [...panel.matchAll(/data-label="([^"]+)"/g)].map((match) => match[1]);
    // Groups of 1 and 2 incidents: the mean alone, marked, with no interval.
    expect(labels).toEqual([
      "no usable stack trace: a (too few for a CI)",
      "no usable stack trace: b (too few for a CI)",
      "usable stack trace: a (too few for a CI)",
      "usable stack trace: b (too few for a CI)",
    ]);
    expect(panel).toContain("no usable stack trace: a (too few for a CI) (n=2)");
    // 1 against 2 incidents: no difference claimed.
    expect(panel).toContain(
      '<li class="warning">a: usable stack trace minus no usable stack trace: too few incidents for a confidence interval or P(&#916; &le; 0) (n = 1 vs 2; at least 5 per side)</li>',
    );
  });
});
