import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/**
 * Pids of this test's scoring workers (not what they start): those whose environment has
 * `DISTDEBUG_TEST_MARKER`, with the value `marker` when given.
 */
function workersMarked(marker?: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const value = readFileSync(`/proc/${name}/environ`, "latin1")
        .split("\0")
        .find((entry) => entry.startsWith("DISTDEBUG_TEST_MARKER="))
        ?.slice("DISTDEBUG_TEST_MARKER=".length);
      if (value === undefined || (marker !== undefined && value !== marker)) continue;
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").includes("score-worker"))
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
        workers = workersMarked(marker);
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

  it("replaces a worker that died while idle at the next score, without waiting for a deadline", async () => {
    const marker = randomUUID();
    vi.stubEnv("DISTDEBUG_TEST_MARKER", marker);
    const root = await testdir({ "src/app/Store.java": JAVA });
    // A deadline far above a score, far below the test's timeout: waiting for it fails the test.
    const scorer = createDirectoryScorer({ root, deadlineMs: 30_000 });
    try {
      // The worker left by the test above carries its own marker: kill it too, then start ours.
      for (const pid of workersMarked()) process.kill(pid, "SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await scorer.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
      const [worker] = workersMarked(marker);
      expect(worker).toBeDefined();
      process.kill(worker as number, "SIGKILL");
      // Until it is reaped (this process's exit handling ran), not only dead (a zombie).
      for (let tries = 0; tries < 100 && existsSync(`/proc/${worker}`); tries++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      expect((await scorer.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
      expect(performance.now() - started).toBeLessThan(30_000);
    } finally {
      await scorer.close();
    }
  }, 120_000);
});
