import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError, parseDiagnosisScores, serialize } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, test } from "vitest";
import { fixtureText } from "../fixtures/language-suite.js";
import {
  createEvaluator,
  directoryReader,
  listDirectoryFiles,
  memoryReader,
  scoreMissingDiagnosis,
} from "./index.js";

const JAVA = "src/Processor.java";
const java = fixtureText("FinalRequestProcessor.java");
const gold = { incidentId: "zk-1", blocks: [{ path: JAVA, startLine: 23, endLine: 27 }] };

function diagnosis(blocks: unknown[], incidentId = "zk-1") {
  return { format: "distdebug.diagnosis/1", incidentId, blocks };
}

function codes(scores: { warnings: { code: string }[] }): string[] {
  return scores.warnings.map((warning) => warning.code);
}

async function score(
  files: Record<string, string | Uint8Array>,
  blocks: unknown[],
  goldBlocks = gold,
) {
  const evaluator = createEvaluator({ readFile: memoryReader(files) });
  const scores = await evaluator.score({ diagnosis: diagnosis(blocks), gold: goldBlocks });
  expect(parseDiagnosisScores(scores)).toEqual(scores);
  return scores;
}

describe("paths", () => {
  test.each([
    "./src/Processor.java",
    "/workspace/src/Processor.java",
    "b/src/Processor.java",
    "src\\Processor.java",
    "src/x/../Processor.java",
  ])("%s resolves to the repository file", async (path) => {
    const scores = await score({ [JAVA]: java }, [{ path, startLine: 23, endLine: 27 }]);
    expect(scores.spans[0]?.path).toBe(JAVA);
    expect(scores.metrics.blockCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBe(1);
  });

  test.each(["../etc/passwd", "/etc/passwd", "src/../../x.java"])(
    "%s is outside the repository: a warning and one phantom atom",
    async (path) => {
      const scores = await score({ [JAVA]: java }, [
        { path: JAVA, startLine: 23, endLine: 27 },
        { path },
      ]);
      expect(codes(scores)).toContain("path-outside-repository");
      expect(scores.metrics.blockPrecision).toBeCloseTo(3 / 4, 10);
      expect(scores.spans[1]?.phantomAtoms).toBe(1);
    },
  );

  test("a missing file is a warning and one phantom atom", async () => {
    const scores = await score({ [JAVA]: java }, [
      { path: JAVA, startLine: 23, endLine: 27 },
      { path: "src/Gone.java", startLine: 1, endLine: 3 },
    ]);
    expect(codes(scores)).toEqual(["missing-file"]);
    expect(scores.metrics.blockPrecision).toBeCloseTo(3 / 4, 10);
    expect(scores.metrics.blockCoverage).toBe(1);
  });

  test("a gold file missing from the revision is a warning, the block unreached", async () => {
    const scores = await score({ [JAVA]: java }, [{ path: JAVA, startLine: 23, endLine: 27 }], {
      incidentId: "zk-1",
      blocks: [...gold.blocks, { path: "src/Gone.java", startLine: 1, endLine: 2 }],
    });
    expect(scores.warnings.find((w) => w.goldBlock === 1)?.code).toBe("missing-file");
    expect(scores.metrics.blockCoverage).toBe(0.5);
  });
});

describe("lines", () => {
  test("reversed lines are read in order, with a warning", async () => {
    const scores = await score({ [JAVA]: java }, [{ path: JAVA, startLine: 27, endLine: 23 }]);
    expect(codes(scores)).toEqual(["lines-reversed"]);
    expect(scores.metrics.blockCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBe(1);
  });

  test("lines past the end: a warning and one phantom; a partly valid range keeps its part", async () => {
    const outside = await score({ [JAVA]: java }, [{ path: JAVA, startLine: 500, endLine: 510 }]);
    expect(codes(outside)).toEqual(["lines-out-of-range"]);
    expect(outside.counts.predictedAtoms).toBe(1);
    expect(outside.metrics.blockPrecision).toBe(0);
    const partly = await score({ [JAVA]: java }, [{ path: JAVA, startLine: 23, endLine: 900 }]);
    expect(codes(partly)).toContain("lines-out-of-range");
    expect(partly.spans[0]?.phantomAtoms).toBe(1);
    expect(partly.metrics.blockPrecision).toBeCloseTo(3 / (partly.spans[0]!.atoms + 1), 10);
  });

  test("duplicate and overlapping spans collapse (set semantics)", async () => {
    const scores = await score({ [JAVA]: java }, [
      { path: JAVA, startLine: 23, endLine: 27 },
      { path: JAVA, startLine: 23, endLine: 27 },
      { path: JAVA, startLine: 25, endLine: 30 },
    ]);
    expect(codes(scores)).toEqual(["duplicate-span", "overlapping-span"]);
    // 23-27: atoms 23-24, 25, 26; 25-30 adds the switch header of line 30.
    expect(scores.counts.predictedAtoms).toBe(4);
    expect(scores.metrics.blockPrecision).toBeCloseTo(3 / 4, 10);
  });

  test("the row budget: spans after it is used up earn no coverage", async () => {
    const evaluator = createEvaluator({
      readFile: memoryReader({ [JAVA]: java }),
      coverageRowBudget: 3,
    });
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([
        { path: JAVA, startLine: 11, endLine: 13 }, // 2 rows
        { path: JAVA, startLine: 23, endLine: 27 }, // 4 rows: over the budget of 3
      ]),
    });
    expect(scores.spans.map((span) => span.earnsCoverage)).toEqual([true, false]);
    expect(codes(scores)).toContain("row-budget-exhausted");
    expect(scores.metrics.blockCoverage).toBe(0);
    expect(scores.metrics.fileCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBeCloseTo(3 / 5, 10);
    expect(scores.parameters).toEqual({
      coverageSpanLimit: 40,
      coverageSpanCount: 20,
      coverageRowBudget: 3,
      coverageRowFloor: 20,
      coverageRepoShare: 0.02,
      coverageFileFloor: 3,
      maxDiagnosisBlocks: 200,
    });
    // B = min(3, max(20, floor(0.02 * 64))) = 3 (64 non-blank lines in the gold's file).
    expect(scores.counts.coverageBudget).toBe(3);
  });
});

describe("diagnoses", () => {
  test("an empty diagnosis is valid and scores 0, with a warning", async () => {
    const scores = await score({ [JAVA]: java }, []);
    expect(scores.valid).toBe(true);
    expect(codes(scores)).toEqual(["empty-diagnosis"]);
    expect(scores.metrics).toEqual({
      blockCoverage: 0,
      blockPrecision: 0,
      fileCoverage: 0,
      linePrecision: 0,
      repositoryShare: 0,
      reachedAll: false,
    });
  });

  test.each([null, "not json", 42, { format: "distdebug.gold/1" }, { blocks: "x" }])(
    "an invalid diagnosis (%j) scores 0 with valid: false, never throws",
    async (value) => {
      const evaluator = createEvaluator({ readFile: memoryReader({ [JAVA]: java }) });
      const scores = await evaluator.score({ diagnosis: value, gold });
      expect(scores.valid).toBe(false);
      expect(codes(scores)).toEqual(["invalid-diagnosis"]);
      expect(scores.metrics.blockCoverage).toBe(0);
      expect(parseDiagnosisScores(scores)).toEqual(scores);
    },
  );

  test("one bad block makes the whole diagnosis invalid, as validate says", async () => {
    const scores = await score({ [JAVA]: java }, [
      { path: JAVA, startLine: 23, endLine: 27 },
      { path: JAVA, startLine: 0 },
      { reason: "no path" },
    ]);
    expect(scores.valid).toBe(false);
    expect(codes(scores)).toEqual(["invalid-diagnosis"]);
    expect(scores.warnings[0]?.message).toMatch(/\$\.blocks\[1\]\.startLine/);
    expect(scores.metrics.blockCoverage).toBe(0);
  });

  test("an incident mismatch is a warning", async () => {
    const evaluator = createEvaluator({ readFile: memoryReader({ [JAVA]: java }) });
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([{ path: JAVA, startLine: 23, endLine: 27 }], "zk-2"),
    });
    expect(codes(scores)).toEqual(["incident-mismatch"]);
  });

  test("scoreMissingDiagnosis is all zero and valid: false", () => {
    const scores = scoreMissingDiagnosis({ gold, reason: "the agent wrote nothing" });
    expect(parseDiagnosisScores(scores)).toEqual(scores);
    expect(scores.valid).toBe(false);
    expect(scores.goldBlocks.map((b) => b.reached)).toEqual([false]);
    expect(scores.warnings).toEqual([
      { code: "invalid-diagnosis", message: "the agent wrote nothing" },
    ]);
  });
});

describe("file contents", () => {
  test("a binary file: a warning, no atoms, one phantom", async () => {
    const bytes = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 10, 65, 10]);
    const scores = await score({ [JAVA]: java, "bin/tool": bytes }, [
      { path: "bin/tool", startLine: 1, endLine: 2 },
    ]);
    expect(codes(scores)).toEqual(["binary-file"]);
    expect(scores.counts.predictedAtoms).toBe(1);
  });

  test("invalid UTF-8: a warning, the file still parses with the same atoms", async () => {
    const bytes = Buffer.from(
      java.replace("// Need to process", "// Need to pr\u00e9cess"),
      "utf8",
    );
    const at = bytes.indexOf(0xc3);
    bytes[at] = 0xff; // break the two-byte sequence
    const scores = await score({ [JAVA]: bytes }, [{ path: JAVA, startLine: 23, endLine: 27 }]);
    expect(codes(scores)).toContain("invalid-utf8");
    expect(scores.metrics.blockPrecision).toBe(1);
    const evaluator = createEvaluator({ readFile: memoryReader({ [JAVA]: bytes }) });
    const index = await evaluator.atoms(JAVA);
    expect(index.invalidUtf8).toBe(true);
    expect(index.atoms.length).toBe(42);
  });

  test("BOM, CRLF and tabs give the same atoms and scores as the plain file", async () => {
    const variants = {
      bom: `\ufeff${java}`,
      crlf: java.replace(/\n/g, "\r\n"),
      tabs: java.replace(/^( {4})+/gm, (spaces) => "\t".repeat(spaces.length / 4)),
    };
    const plain = await createEvaluator({ readFile: memoryReader({ [JAVA]: java }) }).atoms(JAVA);
    for (const [name, text] of Object.entries(variants)) {
      const evaluator = createEvaluator({ readFile: memoryReader({ [JAVA]: text }) });
      const index = await evaluator.atoms(JAVA);
      expect(
        index.atoms.map((a) => [a.type, a.lines]),
        name,
      ).toEqual(plain.atoms.map((a) => [a.type, a.lines]));
      expect(index.bom).toBe(name === "bom");
      const scores = await evaluator.score({
        gold,
        diagnosis: diagnosis([{ path: JAVA, startLine: 23, endLine: 27 }]),
      });
      expect(scores.metrics.blockPrecision, name).toBe(1);
      expect(scores.warnings, name).toEqual([]);
    }
  });

  test("a file the grammar cannot parse: its error region becomes line atoms, with a warning", async () => {
    const broken = java.replace(
      "    public void shutdown() {",
      "    public void shutdown( {{ ]] @@ ;",
    );
    const evaluator = createEvaluator({ readFile: memoryReader({ [JAVA]: broken }) });
    const index = await evaluator.atoms(JAVA);
    expect(index.unparsableLines.length).toBeGreaterThan(0);
    expect(index.atoms.some((atom) => atom.kind === "line")).toBe(true);
    const lines = index.atoms.flatMap((atom) => atom.lines);
    expect(new Set(lines).size).toBe(lines.length);
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([{ path: JAVA, startLine: 23, endLine: 27 }]),
    });
    expect(codes(scores)).toContain("unparsable-region");
  });

  test("other languages fall back to one atom per significant line", async () => {
    const yaml = "# config\nserver:\n  port: 8080\n\n  host: x\n";
    const evaluator = createEvaluator({ readFile: memoryReader({ "conf/app.yaml": yaml }) });
    const index = await evaluator.atoms("conf/app.yaml");
    expect(index.status).toBe("text");
    expect(index.atoms.map((a) => a.lines)).toEqual([[1], [2], [3], [5]]);
  });

  test("a 5 MB generated source file parses whole and scores", { timeout: 120_000 }, async () => {
    const method = (i: number) =>
      `    public int handle${i}(Request r) {\n        if (r.type == ${i}) {\n            return r.apply(${i});\n        }\n        return 0;\n    }\n\n`;
    const parts = ["package gen;\n\npublic class Generated {\n"];
    let size = parts[0]!.length;
    let count = 0;
    while (size < 5 * 1024 * 1024) {
      const text = method(count++);
      parts.push(text);
      size += text.length;
    }
    parts.push("}\n");
    const text = parts.join("");
    const evaluator = createEvaluator({ readFile: memoryReader({ "gen/Generated.java": text }) });
    const index = await evaluator.atoms("gen/Generated.java");
    expect(index.unparsableLines).toEqual([]);
    // Each method: header, if, return, return: 4 atoms; plus package and class.
    expect(index.atoms.length).toBe(2 + 4 * count);
    const last = 3 + 7 * (count - 1) + 1; // header line of the last method
    const scores = await evaluator.score({
      gold: {
        incidentId: "gen",
        blocks: [{ path: "gen/Generated.java", startLine: last + 1, endLine: last + 3 }],
      },
      diagnosis: diagnosis(
        [{ path: "gen/Generated.java", startLine: last + 1, endLine: last + 1 }],
        "gen",
      ),
    });
    expect(scores.metrics.blockCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBe(1);
  });
});

describe("directoryReader", () => {
  test("reads files, gives undefined for missing ones, refuses escapes (also by link)", async () => {
    const outside = await testdir({ "secret.txt": "secret\n" });
    const dir = await testdir({ [JAVA]: java, ".git/HEAD": "ref\n" });
    await symlink(join(outside, "secret.txt"), join(dir, "src/link.txt"));
    const read = directoryReader(dir);
    expect(Buffer.from((await read(JAVA)) as Uint8Array).toString("utf8")).toBe(java);
    expect(await read("src/Missing.java")).toBeUndefined();
    await expect(read("../secret.txt")).rejects.toSatisfy(DistDebugError.isInstance);
    await expect(read("src/link.txt")).rejects.toSatisfy(DistDebugError.isInstance);
    expect(await listDirectoryFiles(dir)).toEqual([JAVA]);
  });

  test("an escape through the reader is a warning in the scores, never a throw", async () => {
    const dir = await testdir({ [JAVA]: java });
    const evaluator = createEvaluator({
      readFile: directoryReader(dir),
      listFiles: () => listDirectoryFiles(dir),
    });
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([
        { path: JAVA, startLine: 23, endLine: 27 },
        { path: "src/../../outside.java" },
      ]),
    });
    expect(codes(scores)).toEqual(["path-outside-repository"]);
    expect(scores.counts.repositoryFiles).toBe(1);
    // 4 significant rows named of R = 64 non-blank lines.
    expect(scores.counts.repositoryRows).toBe(64);
    expect(scores.metrics.repositoryShare).toBeCloseTo(4 / 64, 10);
    expect(serialize(scores)).toBe(
      serialize(
        await createEvaluator({
          readFile: directoryReader(dir),
          listFiles: () => listDirectoryFiles(dir),
        }).score({
          gold,
          diagnosis: diagnosis([
            { path: JAVA, startLine: 23, endLine: 27 },
            { path: "src/../../outside.java" },
          ]),
        }),
      ),
    );
  });
});

describe("aborting", () => {
  const flood = (count: number) => diagnosis(Array.from({ length: count }, () => ({ path: JAVA })));

  test("an aborted signal stops scoring with ABORTED", async () => {
    const evaluator = createEvaluator({ readFile: memoryReader({ [JAVA]: java }) });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      evaluator.score({ gold, diagnosis: flood(1), signal: controller.signal }),
    ).rejects.toMatchObject({ code: "ABORTED" });
  });

  test("a long pass sees an abort that comes while it runs, and the evaluator still scores after", async () => {
    const evaluator = createEvaluator({
      readFile: memoryReader({ [JAVA]: java }),
      maxDiagnosisBlocks: 20_000,
    });
    const controller = new AbortController();
    const scoring = evaluator.score({ gold, diagnosis: flood(20_000), signal: controller.signal });
    // Runs at the first turn of the event loop: scoring alone never yields one, pacing does.
    setImmediate(() => controller.abort(new Error("SIGTERM")));
    await expect(scoring).rejects.toMatchObject({ code: "ABORTED" });
    const scores = await evaluator.score({ gold, diagnosis: flood(1) });
    expect(scores.valid).toBe(true);
  });
});
