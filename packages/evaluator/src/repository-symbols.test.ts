import { COMMON_FUNCTION_NAMES, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createEvaluator, directoryReader, listDirectoryFiles } from "./index.js";

/**
 * Issue 26, scoring games: a bare symbol was looked up in the gold's files first, so a blind
 * agent naming common function names without paths reached the gold; naming every file by
 * path earned full file coverage. Each case here failed on main (commit a8d8bcd).
 */

const COMMON = COMMON_FUNCTION_NAMES;

/** A Java class defining each common name as a three-row method. */
function javaService(name: string): string {
  const methods = COMMON.map(
    (method, at) =>
      `  public int ${method}(int x) {\n    int y = x + ${at};\n    return y * 2;\n  }\n`,
  );
  return `package app.${name.toLowerCase()};\n\npublic class ${name} {\n${methods.join("\n")}}\n`;
}

/** A Python module defining a few of them too (all languages are searched). */
const PYTHON_TOOLS = `def run(x):\n    y = x + 1\n    return y\n\n\ndef apply(x):\n    return x\n`;

/** A repository of ten Java services and a Python module, in a real folder. */
async function repository() {
  const files: Record<string, string> = { "tools/jobs.py": PYTHON_TOOLS };
  for (let k = 0; k < 10; k++)
    files[`src/app/service${k}/Service${k}.java`] = javaService(`Service${k}`);
  const root = await testdir(files);
  const evaluator = createEvaluator({
    readFile: directoryReader(root),
    listFiles: () => listDirectoryFiles(root),
  });
  return {
    root,
    evaluator,
    javaFiles: Object.keys(files).filter((path) => path.endsWith(".java")),
  };
}

/** The lines of method `name` in a service file (its signature to its closing brace). */
function methodLines(name: string): { startLine: number; endLine: number } {
  const lines = javaService("S").split("\n");
  const start = lines.findIndex((line) => line.includes(` ${name}(int x)`)) + 1;
  return { startLine: start, endLine: start + 3 };
}

function diagnosis(blocks: Record<string, unknown>[]) {
  return { format: "distdebug.diagnosis/1", incidentId: "app-1", blocks };
}

describe("a bare symbol resolves repository-wide, never gold-first", () => {
  it("a common name names every definition of it in every file and language, so it costs what it names", async () => {
    const { evaluator } = await repository();
    const gold = {
      incidentId: "app-1",
      blocks: [{ path: "src/app/service3/Service3.java", ...methodLines("run") }],
    };
    const scores = await evaluator.score({ gold, diagnosis: diagnosis([{ symbol: "run" }]) });
    const span = scores.spans[0];
    const paths = [...new Set(span?.definitions.map((definition) => definition.path))];
    // Ten Java services and the Python module, not the gold's file alone.
    expect(paths).toHaveLength(11);
    expect(paths).toContain("tools/jobs.py");
    expect(paths).toContain("src/app/service7/Service7.java");
    expect(span?.warnings).toContain("ambiguous-symbol");
    // 11 definitions of 3 rows each: over this repository's 20-row budget, so no coverage
    // (on main it resolved to the gold's definition alone and reached the gold).
    expect(span?.rows).toBe(33);
    expect(scores.counts.coverageBudget).toBe(20);
    expect(span?.earnsCoverage).toBe(false);
    expect(scores.metrics.blockCoverage).toBe(0);
  });

  it("the 20 common names, path-less, earn no more than the budgets allow: here nothing", async () => {
    const { evaluator } = await repository();
    const gold = {
      incidentId: "app-1",
      blocks: [
        { path: "src/app/service3/Service3.java", ...methodLines("apply") },
        { path: "src/app/service8/Service8.java", ...methodLines("close") },
      ],
    };
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis(COMMON.map((symbol) => ({ symbol }))),
    });
    expect(scores.valid).toBe(true);
    expect(scores.metrics.blockCoverage).toBe(0);
    expect(scores.metrics.fileCoverage).toBe(0);
    expect(scores.counts.coverageRows).toBeLessThanOrEqual(scores.counts.coverageBudget);
    expect(scores.counts.creditedFiles).toBeLessThanOrEqual(scores.counts.fileBudget);
    const codes = scores.warnings.map((warning) => warning.code);
    expect(codes).toContain("file-budget-exhausted");
  });

  it("a qualified name still finds its one definition, in any file", async () => {
    const { evaluator } = await repository();
    const gold = {
      incidentId: "app-1",
      blocks: [{ path: "src/app/service3/Service3.java", ...methodLines("apply") }],
    };
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([{ symbol: "Service3.apply" }]),
    });
    expect(scores.spans[0]?.definitions.map((definition) => definition.qualifiedName)).toEqual([
      "app.service3.Service3.apply",
    ]);
    expect(scores.metrics.blockCoverage).toBe(1);
    expect(scores.metrics.fileCoverage).toBe(1);
  });

  it("1,000-character symbols score (linear split) and a 1,001-character one is invalid", async () => {
    const { evaluator } = await repository();
    const gold = {
      incidentId: "app-1",
      blocks: [{ path: "src/app/service3/Service3.java", ...methodLines("apply") }],
    };
    const nested = `${"<".repeat(497)}run${">".repeat(497)}x`;
    const parens = "(".repeat(1000);
    for (const symbol of [nested, parens, `a.${"(*".repeat(499)}`]) {
      expect([...symbol].length).toBeLessThanOrEqual(1000);
      const scores = await evaluator.score({ gold, diagnosis: diagnosis([{ symbol }]) });
      expect(scores.valid).toBe(true);
      expect(scores.spans[0]?.warnings).toEqual(["unknown-symbol"]);
    }
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([{ symbol: "x".repeat(1001) }]),
    });
    expect(scores.valid).toBe(false);
    expect(scores.warnings[0]?.message).toContain("at most 1000 characters");
  });
});

describe("file coverage under the file budget", () => {
  it("naming every file by path earns at most the file budget's share, and no block coverage", async () => {
    const { evaluator, javaFiles } = await repository();
    // One gold block in every Java file: file coverage is the share of files credited.
    const gold = {
      incidentId: "app-1",
      blocks: javaFiles.map((path) => ({ path, ...methodLines("stop") })),
    };
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([...javaFiles, "tools/jobs.py"].map((path) => ({ path }))),
    });
    // F = 11 source files: Bf = max(3, ceil(0.02 * 11)) = 3.
    expect(scores.metrics.fileCoverage).toBe(3 / 10);
    expect(scores.metrics.blockCoverage).toBe(0);
    expect(scores.counts.repositoryFiles).toBe(11);
    expect(scores.counts.fileBudget).toBe(3);
    expect(scores.counts.creditedFiles).toBe(3);
    const codes = scores.warnings.map((warning) => warning.code);
    expect(codes).toContain("path-only-span");
    expect(codes).toContain("file-budget-exhausted");
  });

  it("only the first coverageSpanCount spans earn file credit", async () => {
    const { root } = await repository();
    const evaluator = createEvaluator({
      readFile: directoryReader(root),
      listFiles: () => listDirectoryFiles(root),
      coverageSpanCount: 1,
      coverageFileFloor: 5,
    });
    const gold = {
      incidentId: "app-1",
      blocks: [{ path: "src/app/service1/Service1.java", ...methodLines("stop") }],
    };
    const scores = await evaluator.score({
      gold,
      diagnosis: diagnosis([
        { path: "src/app/service0/Service0.java" },
        { path: "src/app/service1/Service1.java" },
      ]),
    });
    expect(scores.metrics.fileCoverage).toBe(0);
    expect(scores.counts.creditedFiles).toBe(1);
  });
});
