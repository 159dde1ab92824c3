import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

describe("distdebug dataset stats", () => {
  it("prints the example dataset's shape beside the paper's", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "stats", "examples/dataset"], io)).toBe(0);
    const text = io.out();
    expect(text).toMatch(/^incidents +11 \(11 labeled\)$/m);
    expect(text).toMatch(/^languages +.*java 2.*$/m);
    expect(text).toMatch(
      /^more than one block +\d+% \(paper 46%; (within 10 points|\d+ points off)\)$/m,
    );
    expect(text).toMatch(/^language +incidents +no method +no trace +multi-block +median lines$/m);
    expect(text).toMatch(/^java +2 +\d+% +\d+% +\d+% +[\d.]+$/m);
    expect(text).toMatch(/^median block length +\d+(\.5)? lines over \d+ blocks \(paper 5\)$/m);
  });

  it("gives the figures as JSON, consistent with the gold files", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "stats", "examples/dataset", "--json"], io)).toBe(0);
    const stats = JSON.parse(io.out());
    const perIncident = Object.entries(stats.blocksPerIncident as Record<string, number>);
    const incidents = perIncident.reduce((sum, [, count]) => sum + count, 0);
    const blocks = perIncident.reduce((sum, [size, count]) => sum + Number(size) * count, 0);
    expect(incidents).toBe(stats.labeled);
    expect(blocks).toBe(stats.blocks);
    const multi = perIncident.filter(([size]) => Number(size) > 1).reduce((s, [, c]) => s + c, 0);
    expect(stats.multiBlock).toBeCloseTo(multi / stats.labeled, 10);
    expect(Object.values(stats.languages as Record<string, number>)).toHaveLength(7);
    const byLanguage = stats.byLanguage as Record<string, { incidents: number }>;
    for (const [language, count] of Object.entries(stats.languages as Record<string, number>))
      expect(byLanguage[language]?.incidents).toBe(count);
    const paperOff = Math.abs(stats.multiBlock - stats.paper.multiBlock) > 0.1;
    expect(stats.withinPaperShape.multiBlock).toBe(!paperOff);
  });

  it("is a usage error without exactly one folder", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "stats"], io)).toBe(2);
  });
});
