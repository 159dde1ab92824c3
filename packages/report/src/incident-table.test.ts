import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { loadResults } from "./load-results.js";
import type { ReportSources } from "./sources.js";
import { writeResultsFixture } from "./testing/results-fixture.js";
import { renderReport } from "./write-report.js";

const COLUMNS = [
  "id",
  "title",
  "system",
  "languages",
  "block-coverage",
  "block-precision",
  "file-coverage",
  "status",
  "duration",
];

/** The copy of the per-incident table with this id (`by-<column>-<direction>`). */
function sortCopy(index: string, id: string): string {
  const match = new RegExp(
    `<div class="incident-sort[^"]*" id="${id}"[^>]*>([\\s\\S]*?)</div>`,
  ).exec(index);
  if (!match) throw new Error(`no copy #${id}`);
  return match[1]!;
}

const rowsOf = (copy: string) =>
  [...copy.matchAll(/<tr data-incident="([^"]+)" data-config="([^"]+)">/g)].map(
    (match) => match[1],
  );
const headersOf = (copy: string) =>
  [...copy.matchAll(/<th scope="col" data-column="([^"]+)"/g)].map((match) => match[1]);
const cellOf = (copy: string, incident: string, column: string) => {
  const row = new RegExp(`<tr data-incident="${incident}"[^>]*>([\\s\\S]*?)</tr>`).exec(copy)![1]!;
  return new RegExp(`data-column="${column}"[^>]*>([\\s\\S]*?)</t[dh]>`).exec(row)![1];
};

async function fixtureIndex(options: { sources?: "fixture" | ReportSources } = {}) {
  const dir = await testdir();
  const { sources } = await writeResultsFixture(dir);
  const files = await renderReport({
    results: [await loadResults(dir)],
    sources:
      options.sources === undefined || options.sources === "fixture" ? sources : options.sources,
  });
  return { index: files.get("index.html")!, files };
}

describe("the per-incident table of the report's index", () => {
  it("comes right after the leaderboard, before its detail sections, with every column", async () => {
    const { index } = await fixtureIndex();
    const table = index.indexOf('<h2 id="incidents">');
    expect(table).toBeGreaterThan(index.indexOf('<table class="leaderboard">'));
    expect(table).toBeLessThan(index.indexOf('<h2 id="block-coverage">'));
    expect(table).toBeLessThan(index.indexOf('<h2 id="subgroups">'));
    const copy = sortCopy(index, "by-id-asc");
    expect(headersOf(copy)).toEqual(COLUMNS);
    expect(rowsOf(copy)).toEqual(["alpha-1", "beta-2", "gamma-3"]);
    const cell = (column: string) => cellOf(copy, "beta-2", column);
    expect(cell("id")).toBe('<a href="#attempts/fixture-config/beta-2">beta-2</a>');
    expect(index).toContain('<tr id="attempts/fixture-config/beta-2">');
    expect(cell("title")).toBe("Lease &lt;b&gt;expires&lt;/b&gt; before renewal");
    expect(cell("system")).toBe("beta");
    expect(cell("languages")).toBe("go");
    // The incident means of summary.json: attempts 0.5 and 0 (the failed one counts 0).
    expect(cell("block-coverage")).toBe("25.0");
    expect(cell("block-precision")).toBe("50.0");
    expect(cell("file-coverage")).toBe("50.0");
    expect(cell("status")).toBe("1/2 succeeded; attempt 2 agent-error");
    expect(cellOf(copy, "alpha-1", "status")).toBe("2/2 succeeded");
    // The median of 1.0 s and 3.0 s.
    expect(cell("duration")).toBe("2.0 s");
  });

  it("is pre-rendered in every sort order, each correctly sorted, switched by links without a script", async () => {
    const { index } = await fixtureIndex();
    const expected: Record<string, string[]> = {
      "by-id-asc": ["alpha-1", "beta-2", "gamma-3"],
      "by-id-desc": ["gamma-3", "beta-2", "alpha-1"],
      // Lease..., Node..., Writes...
      "by-title-asc": ["beta-2", "gamma-3", "alpha-1"],
      "by-title-desc": ["alpha-1", "gamma-3", "beta-2"],
      "by-system-asc": ["alpha-1", "beta-2", "gamma-3"],
      "by-system-desc": ["gamma-3", "beta-2", "alpha-1"],
      // go, java, python
      "by-languages-asc": ["beta-2", "alpha-1", "gamma-3"],
      "by-languages-desc": ["gamma-3", "alpha-1", "beta-2"],
      // 50.0, 25.0, 50.0: ties by id.
      "by-block-coverage-desc": ["alpha-1", "gamma-3", "beta-2"],
      "by-block-coverage-asc": ["beta-2", "alpha-1", "gamma-3"],
      // 50.0, 50.0, 25.0
      "by-block-precision-desc": ["alpha-1", "beta-2", "gamma-3"],
      "by-block-precision-asc": ["gamma-3", "alpha-1", "beta-2"],
      // 100.0, 50.0, 50.0
      "by-file-coverage-desc": ["alpha-1", "beta-2", "gamma-3"],
      "by-file-coverage-asc": ["beta-2", "gamma-3", "alpha-1"],
      // 2/2, 1/2, 2/2 succeeded
      "by-status-desc": ["alpha-1", "gamma-3", "beta-2"],
      "by-status-asc": ["beta-2", "alpha-1", "gamma-3"],
      // medians 5.0 s, 2.0 s, 10.0 s
      "by-duration-desc": ["gamma-3", "alpha-1", "beta-2"],
      "by-duration-asc": ["beta-2", "alpha-1", "gamma-3"],
    };
    const ids = [...index.matchAll(/<div class="incident-sort[^"]*" id="([^"]+)"/g)].map(
      (match) => match[1],
    );
    expect([...ids].sort()).toEqual(Object.keys(expected).sort());
    // The copy by id comes last: CSS shows it unless an earlier copy is the :target.
    expect(ids.at(-1)).toBe("by-id-asc");
    expect(index).toContain('<div class="incident-sort default" id="by-id-asc"');
    for (const [id, order] of Object.entries(expected)) {
      const copy = sortCopy(index, id);
      expect(rowsOf(copy), id).toEqual(order);
      const [, column, direction] = /^by-(.+)-(asc|desc)$/.exec(id)!;
      // The sorted column's heading is marked and links to the other direction.
      const sortedHeading =
        /<th scope="col" data-column="([^"]+)"[^>]* aria-sort="([a-z]+)"><a href="#([^"]+)">/.exec(
          copy,
        )!;
      expect(sortedHeading.slice(1)).toEqual([
        column,
        direction === "asc" ? "ascending" : "descending",
        `by-${column}-${direction === "asc" ? "desc" : "asc"}`,
      ]);
      expect(copy.match(/aria-sort=/g)).toHaveLength(1);
    }
    // Other headings link to their first direction: text up, figures down.
    const byId = sortCopy(index, "by-id-asc");
    expect(byId).toContain('data-column="title" class="text"><a href="#by-title-asc">');
    expect(byId).toContain('data-column="block-coverage"><a href="#by-block-coverage-desc">');
    expect(index).not.toMatch(/<script|\son[a-z]+=/i);
    expect(index).toContain(".incident-sort:target ~ .incident-sort.default { display: none; }");
  });

  it("has one row per incident and configuration, sortable by configuration, with several configurations", async () => {
    const first = await testdir();
    const second = await testdir();
    await writeResultsFixture(first, { name: "config-b" });
    await writeResultsFixture(second, { name: "config-a", seed: 7 });
    const files = await renderReport({
      results: [await loadResults(first), await loadResults(second)],
    });
    const index = files.get("index.html")!;
    const copy = sortCopy(index, "by-id-asc");
    expect(headersOf(copy)).toEqual(["id", "configuration", ...COLUMNS.slice(1)]);
    const rows = [...copy.matchAll(/<tr data-incident="([^"]+)" data-config="([^"]+)">/g)].map(
      (match) => `${match[1]} ${match[2]}`,
    );
    expect(rows).toEqual([
      "alpha-1 config-a",
      "alpha-1 config-b",
      "beta-2 config-a",
      "beta-2 config-b",
      "gamma-3 config-a",
      "gamma-3 config-b",
    ]);
    expect(cellOf(copy, "beta-2", "id")).toBe('<a href="#attempts/config-a/beta-2">beta-2</a>');
    expect(rowsOf(sortCopy(index, "by-configuration-desc"))).toEqual([
      "alpha-1",
      "beta-2",
      "gamma-3",
      "alpha-1",
      "beta-2",
      "gamma-3",
    ]);
    expect(index.match(/<div class="incident-sort[ "]/g)).toHaveLength(20);
  });

  it('says "unknown" for incidents the sources do not know or fail on, sorted last', async () => {
    const known = {
      title: "Writes lost after a leader change",
      system: "alpha",
      languages: ["java"],
    };
    const sources: ReportSources = {
      async readSource() {
        return undefined;
      },
      async incident(incidentId) {
        if (incidentId === "beta-2") throw new Error("the dataset cannot be read");
        return incidentId === "alpha-1" ? known : undefined;
      },
    };
    const { index, files } = await fixtureIndex({ sources });
    const copy = sortCopy(index, "by-id-asc");
    for (const incident of ["beta-2", "gamma-3"])
      for (const column of ["title", "system", "languages"])
        expect(cellOf(copy, incident, column)).toBe('<span class="unknown">unknown</span>');
    expect(rowsOf(sortCopy(index, "by-title-asc"))).toEqual(["alpha-1", "beta-2", "gamma-3"]);
    expect(rowsOf(sortCopy(index, "by-title-desc"))).toEqual(["alpha-1", "beta-2", "gamma-3"]);
    const page = files.get("attempts/fixture-config/beta-2/attempt-1.html")!;
    expect(page).toContain('<dd data-fact="title">unknown</dd>');
    expect(page).toContain("The incident's report and artifacts are unknown");
    // Without sources at all, the same.
    const bare = await fixtureIndex({ sources: { readSource: async () => undefined } });
    expect(cellOf(sortCopy(bare.index, "by-id-asc"), "alpha-1", "title")).toBe(
      '<span class="unknown">unknown</span>',
    );
  });
});
