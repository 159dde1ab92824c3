import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Estimate, SearchOutcome, trajectoryTurns } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { loadResults } from "./load-results.js";
import { SEARCH_OUTCOME_LEGEND } from "./search-path-section.js";
import { writeResultsFixture } from "./testing/results-fixture.js";
import { renderReport } from "./write-report.js";

const estimate = (mean: number): Estimate => ({ mean, low: mean / 2, high: mean, se: 0.01, n: 2 });
const repoRoot = join(import.meta.dirname, "../../..");

async function loadedWithSearch() {
  const dir = await testdir();
  await writeResultsFixture(dir);
  const loaded = await loadResults(dir);
  const attempt = loaded.attempts[0]!;
  const turns = trajectoryTurns(attempt.trajectory!);
  expect(turns.length).toBeGreaterThanOrEqual(1);
  const last = turns.length;
  attempt.scores!.search = {
    observed: true,
    turns: last,
    causalFilesShown: [attempt.scores!.goldBlocks[0]!.path],
    causalBlocksShown: [0],
    firstCausalFileStep: 1,
    firstCausalBlockStep: last,
    tokensToFirstCausalFile: 1200,
    tokensToFirstCausalBlock: 5400,
    secondsToFirstCausalFile: null,
    secondsToFirstCausalBlock: 12.5,
    blocks: attempt.scores!.goldBlocks.map((_block, index) => ({
      outcome: index === 0 ? "shown-not-named" : "never-shown",
      fileStep: 1,
      blockStep: index === 0 ? last : null,
    })),
  };
  loaded.summary.search = {
    shares: {
      named: estimate(0.4),
      "shown-not-named": estimate(0.3),
      "file-only": estimate(0.1),
      "never-shown": estimate(0.1),
      unknown: estimate(0.1),
    },
    observedAttempts: 1,
    toFirstCausalFile: { attempts: 1, steps: { q1: 1, median: 1, q3: 1 }, tokens: null },
    toFirstCausalBlock: {
      attempts: 1,
      steps: { q1: last, median: last, q3: last },
      tokens: { q1: 5400, median: 5400, q3: 5400 },
    },
  };
  return { loaded, attempt, turns, last };
}

describe("the report's search path", () => {
  it("index: a stacked bar of the five classes sized by their shares, the legend, the steps distribution", async () => {
    const { loaded } = await loadedWithSearch();
    const index = (await renderReport({ results: [loaded] })).get("index.html")!;
    expect(index).toContain('<h2 id="search-path">Search path</h2>');
    for (const outcome of SearchOutcome.options) {
      expect(index).toContain(`data-outcome="${outcome}"`);
      expect(index).toContain(`<b>${SEARCH_OUTCOME_LEGEND[outcome].label}</b>`);
    }
    // 0.3 of a 520-pixel bar.
    expect(index).toMatch(
      /width="156\.0" height="22" fill="#e3a21a" data-outcome="shown-not-named"/,
    );
    expect(index).toContain("turns to the first causal block");
    expect(index).toContain("first causal block: 1 attempt; turns median");
  });

  it("attempt page: the turn that first showed the causal block links to its step in the trajectory view", async () => {
    const { loaded, attempt, turns, last } = await loadedWithSearch();
    const files = await renderReport({ results: [loaded] });
    const page = files.get(
      `attempts/fixture-config/${attempt.incidentId}/attempt-${attempt.attempt}.html`,
    )!;
    const step = (turns[last - 1]?.observations[0]?.stepIndex ?? -1) + 1;
    expect(page).toContain(
      `<a href="#step-${step}" data-turn="${last}">turn ${last} (step #${step})</a>`,
    );
    expect(page).toContain(`id="step-${step}"`);
    expect(page).toContain('data-outcome="shown-not-named"');
    expect(page).toContain("5.4K tokens, 12.5 s");
  });

  it("the legend's classes are the ones docs/guide/metrics.md defines", async () => {
    const guide = await readFile(join(repoRoot, "docs/guide/metrics.md"), "utf8");
    for (const outcome of SearchOutcome.options) expect(guide).toContain(`\`${outcome}\``);
  });
});
