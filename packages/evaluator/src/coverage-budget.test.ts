import { parseDiagnosisScores } from "@distdebug/schema";
import { describe, expect, test } from "vitest";
import {
  coverageBudget,
  createEvaluator,
  type EvaluatorOptions,
  evaluatorParameters,
  memoryReader,
} from "./index.js";

/** `lines` Python assignments, one significant row and one atom per line: lines i..j are j-i+1 rows. */
function assignments(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `v${i + 1} = ${i + 1}\n`).join("");
}

/** A file of `nonBlank` non-blank lines, a third of them comments, with blank lines between. */
function filler(nonBlank: number): string {
  return Array.from({ length: nonBlank }, (_, i) =>
    i % 3 === 0 ? `# note ${i}\n\n` : `w${i} = ${i}\n`,
  ).join("");
}

const MAIN = "app/main.py";

/** An evaluator over main.py (`mainLines` lines) plus a filler of `fillerLines` non-blank lines. */
function repository(
  mainLines: number,
  fillerLines: number,
  options: Partial<EvaluatorOptions> = {},
) {
  const files: Record<string, string> = {
    [MAIN]: assignments(mainLines),
    "lib/filler.py": filler(fillerLines),
    // Not a language of the evaluator: not part of R.
    "README.md": "# app\n\nreadme\n".repeat(50),
  };
  const reads = new Map<string, number>();
  const read = memoryReader(files);
  const evaluator = createEvaluator({
    readFile: (path) => {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return read(path);
    },
    listFiles: async () => Object.keys(files),
    ...options,
  });
  return { evaluator, reads };
}

/** Scores line spans `[start, end]` of main.py against gold lines of main.py. */
async function score(
  evaluator: ReturnType<typeof createEvaluator>,
  goldLines: number[],
  spans: [number, number][],
) {
  const scores = await evaluator.score({
    gold: {
      incidentId: "app-1",
      blocks: goldLines.map((line) => ({ path: MAIN, startLine: line, endLine: line })),
    },
    diagnosis: {
      format: "distdebug.diagnosis/1",
      incidentId: "app-1",
      blocks: spans.map(([startLine, endLine]) => ({ path: MAIN, startLine, endLine })),
    },
  });
  expect(parseDiagnosisScores(scores)).toEqual(scores);
  return scores;
}

const earns = (scores: { spans: { earnsCoverage: boolean }[] }) =>
  scores.spans.map((span) => span.earnsCoverage);

describe("the budget B = min(400, max(20, floor(0.02 * R)))", () => {
  test.each([
    [0, 20],
    [999, 20], // floor(19.98) = 19 < 20
    [1_000, 20],
    [1_049, 20], // floor(20.98) = 20
    [1_050, 21],
    [3_000, 60],
    [3_049, 60],
    [3_050, 61],
    [19_999, 399], // floor(399.98)
    [20_000, 400],
    [10_000_000, 400],
  ])("R = %i gives B = %i", (rows, budget) => {
    expect(coverageBudget(evaluatorParameters(), rows)).toBe(budget);
  });

  test("floor() is exact for shares binary floating point cannot hold (0.29 * 100 = 29)", () => {
    const parameters = evaluatorParameters({ coverageRepoShare: 0.29, coverageRowFloor: 1 });
    expect(coverageBudget(parameters, 100)).toBe(29);
  });

  test("bad parameters are refused, naming the parameter", () => {
    expect(() => evaluatorParameters({ coverageRepoShare: 0 })).toThrow(/coverageRepoShare/);
    expect(() => evaluatorParameters({ coverageRepoShare: 1.5 })).toThrow(/coverageRepoShare/);
    expect(() => evaluatorParameters({ coverageSpanCount: 2.5 })).toThrow(/coverageSpanCount/);
    expect(() => createEvaluator({ readFile: memoryReader({}), maxDiagnosisBlocks: 0 })).toThrow(
      /maxDiagnosisBlocks/,
    );
  });
});

describe("R and B of a repository, recorded in the scores", () => {
  test("a small repository gets the floor: R = 102, B = 20", async () => {
    // main.py 100 lines + filler 2 non-blank lines (one a comment) = 102; README.md not counted.
    const { evaluator } = repository(100, 2);
    const over = await score(
      evaluator,
      [50],
      [
        [1, 20],
        [50, 50],
      ],
    );
    expect(over.counts.repositoryRows).toBe(102);
    expect(over.counts.repositoryFiles).toBe(2);
    expect(over.counts.coverageBudget).toBe(20);
    // 20 rows use the whole budget: line 50 would be the 21st row.
    expect(earns(over)).toEqual([true, false]);
    expect(over.warnings.map((w) => w.code)).toEqual(["row-budget-exhausted"]);
    expect(over.metrics.blockCoverage).toBe(0);
    const within = await score(
      evaluator,
      [50],
      [
        [1, 19],
        [50, 50],
      ],
    );
    expect(earns(within)).toEqual([true, true]);
    expect(within.counts.coverageRows).toBe(20);
    expect(within.metrics.blockCoverage).toBe(1);
    // Share of the repository named: 20 rows of 102.
    expect(within.metrics.repositoryShare).toBeCloseTo(20 / 102, 12);
  });

  test("a huge repository gets the cap: R = 30,500, B = 400 (ten 40-row spans, not an eleventh row)", async () => {
    const { evaluator } = repository(500, 30_000);
    const tiles = Array.from({ length: 10 }, (_, i): [number, number] => [40 * i + 1, 40 * i + 40]);
    const scores = await score(evaluator, [400, 450], [...tiles, [450, 450]]);
    expect(scores.counts.repositoryRows).toBe(30_500);
    expect(scores.counts.coverageBudget).toBe(400);
    expect(earns(scores)).toEqual([...tiles.map(() => true), false]);
    expect(scores.counts.coverageRows).toBe(400);
    expect(scores.goldBlocks.map((block) => block.reached)).toEqual([true, false]);
    expect(scores.metrics.blockCoverage).toBe(0.5);
  });

  test("in between B = floor(0.02 * R): 60 at R = 3,049, 61 at R = 3,050", async () => {
    const spans: [number, number][] = [
      [1, 40],
      [41, 60],
      [61, 61],
    ];
    const at3049 = await score(repository(500, 2_549).evaluator, [61], spans);
    expect(at3049.counts.repositoryRows).toBe(3_049);
    expect(at3049.counts.coverageBudget).toBe(60);
    expect(earns(at3049)).toEqual([true, true, false]);
    expect(at3049.metrics.blockCoverage).toBe(0);
    const at3050 = await score(repository(500, 2_550).evaluator, [61], spans);
    expect(at3050.counts.repositoryRows).toBe(3_050);
    expect(at3050.counts.coverageBudget).toBe(61);
    expect(earns(at3050)).toEqual([true, true, true]);
    expect(at3050.metrics.blockCoverage).toBe(1);
  });

  test("R is counted once per evaluator, by reading and not by loading files for scoring", async () => {
    const { evaluator, reads } = repository(100, 2_900);
    await score(evaluator, [5], [[5, 5]]);
    await score(evaluator, [6], [[6, 6]]);
    // filler.py was read once for R and never again (never parsed: no span or gold names it).
    expect(reads.get("lib/filler.py")).toBe(1);
    expect(reads.get("README.md")).toBeUndefined();
  });

  test("without listFiles, R is the gold files' non-blank lines", async () => {
    const evaluator = createEvaluator({
      readFile: memoryReader({ [MAIN]: `${assignments(1_500)}\n\n# end\n` }),
    });
    const scores = await score(evaluator, [1], [[1, 1]]);
    expect(scores.counts.repositoryRows).toBe(1_501);
    expect(scores.counts.coverageBudget).toBe(30);
  });
});

describe("which spans earn coverage", () => {
  // R = 3,000: B = 60.
  const { evaluator } = repository(500, 2_500);

  test("only the first 20 spans: the 21st earns nothing, within budget or not", async () => {
    const singles = Array.from({ length: 21 }, (_, i): [number, number] => [i + 1, i + 1]);
    const scores = await score(evaluator, [20, 21], singles);
    expect(scores.counts.coverageBudget).toBe(60);
    expect(earns(scores)).toEqual([...Array(20).fill(true), false]);
    expect(scores.spans[20]?.warnings).toEqual(["span-over-count"]);
    expect(scores.goldBlocks.map((block) => block.reached)).toEqual([true, false]);
    expect(scores.metrics.blockCoverage).toBe(0.5);
    // Its atom still counts for precision: 2 gold atoms among 21 named.
    expect(scores.metrics.blockPrecision).toBeCloseTo(2 / 21, 12);
  });

  test("listed order: an early big span uses the budget, so a later one does not earn", async () => {
    const bigFirst = await score(
      evaluator,
      [200],
      [
        [1, 40],
        [181, 210],
      ],
    );
    // 40 + 30 = 70 > 60.
    expect(earns(bigFirst)).toEqual([true, false]);
    expect(bigFirst.metrics.blockCoverage).toBe(0);
    const bigLast = await score(
      evaluator,
      [200],
      [
        [181, 210],
        [1, 40],
      ],
    );
    expect(earns(bigLast)).toEqual([true, false]);
    expect(bigLast.metrics.blockCoverage).toBe(1);
    expect(bigLast.goldBlocks[0]?.reachedBy).toEqual([0]);
  });

  test("a span that does not fit does not close the budget: a later smaller one still earns", async () => {
    const scores = await score(
      evaluator,
      [300],
      [
        [1, 40],
        [101, 130], // 30 rows: 70 > 60
        [291, 310], // 20 rows: 60
      ],
    );
    expect(earns(scores)).toEqual([true, false, true]);
    expect(scores.counts.coverageRows).toBe(60);
    expect(scores.metrics.blockCoverage).toBe(1);
  });

  test("a span of 41 rows earns nothing and still counts against precision", async () => {
    const scores = await score(evaluator, [10], [[1, 41]]);
    expect(earns(scores)).toEqual([false]);
    expect(scores.spans[0]?.rows).toBe(41);
    expect(scores.spans[0]?.warnings).toEqual(["span-over-limit"]);
    expect(scores.metrics.blockCoverage).toBe(0);
    expect(scores.metrics.fileCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBeCloseTo(1 / 41, 12);
    // It used none of the budget: a 40-row span after it still earns.
    const after = await score(
      evaluator,
      [10],
      [
        [1, 41],
        [1, 40],
      ],
    );
    expect(earns(after)).toEqual([false, true]);
    expect(after.counts.coverageRows).toBe(40);
    expect(after.metrics.blockCoverage).toBe(1);
  });

  test("rows an earlier coverage span holds are not counted twice", async () => {
    const scores = await score(
      evaluator,
      [60],
      [
        [1, 40],
        [21, 60], // 20 new rows: 60
      ],
    );
    expect(earns(scores)).toEqual([true, true]);
    expect(scores.counts.coverageRows).toBe(60);
  });
});
