import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { testdir } from "@distdebug/test-utils";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createDirectoryScorer } from "./index.js";

const JAVA = `package app;\n\npublic class Store {\n  public int apply(int x) {\n    int y = x + 1;\n    return y;\n  }\n}\n`;
const gold = {
  incidentId: "app-1",
  blocks: [{ path: "src/app/Store.java", startLine: 5, endLine: 5 }],
};
const diagnosis = {
  format: "distdebug.diagnosis/1",
  incidentId: "app-1",
  blocks: [{ path: "src/app/Store.java", startLine: 5, endLine: 6 }],
};

/** Pids of the scoring workers whose environment holds `NAME=value` (not what they start). */
function workersMarked(entry: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (
        readFileSync(`/proc/${name}/environ`, "latin1").includes(`${entry}\0`) &&
        readFileSync(`/proc/${name}/cmdline`, "latin1").includes("score-worker")
      )
        pids.push(Number(name));
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return pids;
}

afterAll(() => {
  vi.unstubAllEnvs();
});

describe("a scoring worker process that dies while it scores", () => {
  it("fails that score with the signal it died of, and the next score starts a new worker", async () => {
    // This file's own worker (the first scorer of this test process), marked in its environment.
    const marker = randomUUID();
    vi.stubEnv("DISTDEBUG_TEST_MARKER", marker);
    const method = "  public int apply(int x) {\n    int y = x + 1;\n    return y;\n  }\n";
    const big = `package app;\n\npublic class Big {\n${method.repeat(60_000)}}\n`;
    const root = await testdir({ "src/app/Store.java": JAVA, "src/app/Big.java": big });
    const scorer = createDirectoryScorer({ root });
    try {
      const onBig = {
        ...diagnosis,
        blocks: [{ path: "src/app/Big.java", startLine: 5, endLine: 9 }],
      };
      const scoring = scorer.score({ diagnosis: onBig, gold });
      let workers: number[] = [];
      for (let tries = 0; tries < 600 && workers.length === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        workers = workersMarked(`DISTDEBUG_TEST_MARKER=${marker}`);
      }
      expect(workers).toHaveLength(1);
      process.kill(workers[0] as number, "SIGSEGV");
      await expect(scoring).rejects.toMatchObject({
        code: "INTERNAL",
        message: expect.stringMatching(/^the scoring worker exited \(signal SIGSEGV\)/),
      });
      expect((await scorer.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
    } finally {
      await scorer.close();
    }
  }, 120_000); // Two worker starts (node, tsx, the grammars) and a 4 MB parse on a loaded machine.
});
