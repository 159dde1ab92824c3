import { parseDiagnosisScores, serialize } from "@distdebug/schema";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fixtureText } from "../fixtures/language-suite.js";
import { createEvaluator, memoryReader } from "./index.js";

const files = {
  "raft/raft.go": fixtureText("raft.go"),
  "src/Processor.java": fixtureText("FinalRequestProcessor.java"),
  "pool/scheduler.py": fixtureText("scheduler.py"),
};
const paths = Object.keys(files);
const gold = {
  incidentId: "prop-1",
  blocks: [
    { path: "raft/raft.go", startLine: 24, endLine: 29 },
    { path: "src/Processor.java", startLine: 23, endLine: 27 },
    { path: "pool/scheduler.py", startLine: 46, endLine: 55 },
  ],
};

const block = fc.oneof(
  fc.record({
    path: fc.constantFrom(...paths, "missing/File.java"),
    startLine: fc.integer({ min: 1, max: 80 }),
    endLine: fc.integer({ min: 1, max: 80 }),
  }),
  fc.record({ path: fc.constantFrom(...paths) }),
  fc.record({
    symbol: fc.constantFrom("raft.Step", "processRequest", "Scheduler.assign", "drain", "nope"),
  }),
);

function diagnosis(blocks: unknown[]) {
  return { format: "distdebug.diagnosis/1", incidentId: "prop-1", blocks };
}

describe("metric invariants over random diagnoses", () => {
  const evaluator = createEvaluator({ readFile: memoryReader(files) });

  test("shares stay in [0, 1], block coverage <= file coverage, adding a span never lowers file coverage", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(block, { maxLength: 8 }), block, async (blocks, extra) => {
        const before = await evaluator.score({ diagnosis: diagnosis(blocks), gold });
        const after = await evaluator.score({ diagnosis: diagnosis([...blocks, extra]), gold });
        for (const scores of [before, after]) {
          const m = scores.metrics;
          expect(parseDiagnosisScores(scores)).toEqual(scores);
          expect(m.blockPrecision).toBeGreaterThanOrEqual(0);
          expect(m.blockPrecision).toBeLessThanOrEqual(1);
          expect(m.blockCoverage).toBeGreaterThanOrEqual(0);
          expect(m.blockCoverage).toBeLessThanOrEqual(m.fileCoverage);
          expect(m.fileCoverage).toBeLessThanOrEqual(1);
          expect(m.linePrecision).toBeLessThanOrEqual(1);
          expect(m.repositoryShare).toBeLessThanOrEqual(1);
          expect(m.reachedAll).toBe(m.blockCoverage === 1);
        }
        expect(after.metrics.fileCoverage).toBeGreaterThanOrEqual(before.metrics.fileCoverage);
      }),
      { numRuns: 150, seed: 20261202 },
    );
  });

  test("the same inputs give byte-identical output, also from a fresh evaluator", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(block, { maxLength: 6 }), async (blocks) => {
        const first = serialize(await evaluator.score({ diagnosis: diagnosis(blocks), gold }));
        const fresh = createEvaluator({ readFile: memoryReader(files) });
        const second = serialize(await fresh.score({ diagnosis: diagnosis(blocks), gold }));
        expect(second).toBe(first);
      }),
      { numRuns: 25, seed: 7 },
    );
  });

  test("atoms partition the significant lines of every fixture", async () => {
    for (const path of paths) {
      const index = await evaluator.atoms(path);
      const lines = index.atoms.flatMap((atom) => atom.lines);
      expect(new Set(lines).size).toBe(lines.length);
      expect(lines.length).toBe(index.significantLines);
      for (const atom of index.atoms) {
        expect(atom.lines.length).toBeGreaterThan(0);
        expect(atom.lines[0]).toBeGreaterThanOrEqual(atom.startLine);
        expect(atom.lines.at(-1)).toBeLessThanOrEqual(atom.endLine);
      }
    }
  });
});
