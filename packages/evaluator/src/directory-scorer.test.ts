import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { serialize } from "@distdebug/schema";
import { childProcesses, listProcesses, testdir, waitFor } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import {
  createDirectoryScorer,
  createEvaluator,
  directoryReader,
  listDirectoryFiles,
} from "./index.js";

const JAVA = `package app;\n\npublic class Store {\n  public int apply(int x) {\n    int y = x + 1;\n    return y;\n  }\n}\n`;
const gold = {
  incidentId: "app-1",
  blocks: [{ path: "src/app/Store.java", startLine: 5, endLine: 5 }],
};
const diagnosis = {
  format: "distdebug.diagnosis/1",
  incidentId: "app-1",
  blocks: [{ symbol: "Store.apply" }, { path: "src/app/Store.java", startLine: 5, endLine: 6 }],
};

/** A folder with Store.java and a 4 MB Big.java, whose parse takes about a second. */
function bigRoot(): Promise<string> {
  const method = "  public int apply(int x) {\n    int y = x + 1;\n    return y;\n  }\n";
  const big = `package app;\n\npublic class Big {\n${method.repeat(60_000)}}\n`;
  return testdir({ "src/app/Store.java": JAVA, "src/app/Big.java": big });
}

/** A diagnosis naming a block of Big.java (scoring it parses the whole file). */
const onBig = { ...diagnosis, blocks: [{ path: "src/app/Big.java", startLine: 5, endLine: 9 }] };

/** The scoring workers this process started (its children running score-worker). */
function scoringWorkers(): number[] {
  return childProcesses()
    .filter((child) => child.command.includes("score-worker"))
    .map((child) => child.pid);
}

describe("createDirectoryScorer: scoring in a worker process with a deadline", () => {
  it("gives the same bytes as the evaluator in this thread, attempt after attempt", async () => {
    const root = await testdir({ "src/app/Store.java": JAVA, "README.md": "x\n" });
    const scorer = createDirectoryScorer({ root });
    try {
      const expected = await createEvaluator({
        readFile: directoryReader(root),
        listFiles: () => listDirectoryFiles(root),
      }).score({ diagnosis, gold });
      expect(expected.metrics.blockCoverage).toBe(1);
      for (let attempt = 0; attempt < 2; attempt++)
        expect(serialize(await scorer.score({ diagnosis, gold }))).toBe(serialize(expected));
    } finally {
      await scorer.close();
    }
  }, 60_000); // Starts a worker process that loads the grammars: seconds on a loaded machine.

  it("a diagnosis scored past the deadline is invalid with a reason, never a hang or a harness fault", async () => {
    const root = await testdir({ "src/app/Store.java": JAVA });
    // 1 ms: the worker's start alone (loading modules and grammars) takes far longer on any
    // machine, so the first score is always past the deadline.
    const scorer = createDirectoryScorer({ root, deadlineMs: 1 });
    try {
      const late = await scorer.score({ diagnosis, gold });
      expect(late.valid).toBe(false);
      expect(late.metrics.blockCoverage).toBe(0);
      expect(late.warnings).toEqual([
        {
          code: "scoring-deadline-exceeded",
          message:
            "scoring this diagnosis took longer than the 0.001 s deadline; it scores as an invalid diagnosis",
        },
      ]);
    } finally {
      await scorer.close();
    }
  }, 60_000);

  it("stops a worker in the middle of parsing at the deadline without harm to this process, and scores again after", async () => {
    // Each deadline below falls inside the parse of Big.java, where tree-sitter calls back into
    // JavaScript (stopping a worker thread there aborted the whole process: the worker is a
    // child process, stopped by SIGKILL).
    const root = await bigRoot();
    const warm = createDirectoryScorer({ root });
    try {
      for (const deadlineMs of [150, 300, 450]) {
        // The shared worker started (grammars loaded, after the last one was stopped), so the
        // deadline falls in the parse, not in the start.
        expect((await warm.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
        const scorer = createDirectoryScorer({ root, deadlineMs });
        try {
          const late = await scorer.score({ diagnosis: onBig, gold });
          expect(late.warnings.map((warning) => warning.code)).toEqual([
            "scoring-deadline-exceeded",
          ]);
        } finally {
          await scorer.close();
        }
      }
      expect((await warm.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
    } finally {
      await warm.close();
    }
  }, 120_000);

  it("fails a score whose worker died naming its signal, and the next score starts a new worker", async () => {
    const root = await bigRoot();
    const scorer = createDirectoryScorer({ root });
    try {
      const scoring = scorer.score({ diagnosis: onBig, gold });
      await waitFor(() => scoringWorkers().length > 0, 30_000);
      const workers = scoringWorkers();
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
    const root = await testdir({ "src/app/Store.java": JAVA });
    // A deadline far above a score, far below the test's timeout: waiting for it fails the test.
    const scorer = createDirectoryScorer({ root, deadlineMs: 30_000 });
    try {
      expect((await scorer.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
      const [worker] = scoringWorkers();
      expect(worker).toBeDefined();
      process.kill(worker as number, "SIGKILL");
      // Until it is reaped (not only dead, a zombie): this process's exit handling ran.
      expect(await waitFor(() => !existsSync(`/proc/${worker}`), 10_000)).toBe(true);
      const started = performance.now();
      expect((await scorer.score({ diagnosis, gold })).metrics.blockCoverage).toBe(1);
      expect(performance.now() - started).toBeLessThan(30_000);
    } finally {
      await scorer.close();
    }
  }, 120_000);

  it("stops promptly with ABORTED when aborted", async () => {
    const root = await testdir({ "src/app/Store.java": JAVA });
    const scorer = createDirectoryScorer({ root });
    const controller = new AbortController();
    const scoring = scorer.score({ diagnosis, gold, signal: controller.signal });
    controller.abort();
    await expect(scoring).rejects.toMatchObject({ code: "ABORTED" });
    await scorer.close();
  }, 60_000);
});

describe("createDirectoryScorer over a tree read in the calling process", () => {
  it("gives the bytes of the folder's scores, reading only through the tree", async () => {
    const files: Record<string, string> = { "src/app/Store.java": JAVA, "README.md": "x\n" };
    const root = await testdir(files);
    const reads: string[] = [];
    const tree = {
      readFile: async (path: string) => {
        reads.push(path);
        return files[path] === undefined ? undefined : Buffer.from(files[path]);
      },
      listFiles: async () => Object.keys(files),
    };
    const onFolder = createDirectoryScorer({ root });
    const onTree = createDirectoryScorer({ root: tree });
    try {
      const expected = serialize(await onFolder.score({ diagnosis, gold }));
      expect(serialize(await onTree.score({ diagnosis, gold }))).toBe(expected);
      expect(reads).toContain("src/app/Store.java");
      // A read that fails is the file's problem (a warning), not the worker's.
      const failing = createDirectoryScorer({
        root: {
          readFile: async () => {
            throw new Error("disk on fire");
          },
          listFiles: async () => ["src/app/Store.java"],
        },
      });
      const scores = await failing.score({ diagnosis, gold });
      expect(scores.metrics.blockCoverage).toBe(0);
      await failing.close();
      // Closed, then used again: the tree is read again.
      await onTree.close();
      expect(serialize(await onTree.score({ diagnosis, gold }))).toBe(expected);
    } finally {
      await onFolder.close();
      await onTree.close();
    }
  }, 60_000); // Starts a worker process that loads the grammars: seconds on a loaded machine.
});

/** Live processes whose environment holds `marker`. */
function processesMarked(marker: string): number[] {
  return listProcesses()
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry.pid}/environ`, "latin1").includes(`${marker}\0`);
      } catch {
        return false; // Ended meanwhile, or not ours to read.
      }
    })
    .map((entry) => entry.pid);
}

describe("the scoring worker process", () => {
  it("never keeps the calling process alive when idle, and ends with it", async () => {
    const root = await testdir({ "src/app/Store.java": JAVA });
    // Scores twice (one scorer closed, one left open), then returns: the process must end on
    // its own, long before the worker's minute idle, and leave no worker behind.
    const program = `
      const { createDirectoryScorer } = await import(${JSON.stringify(new URL("./index.ts", import.meta.url).href)});
      const input = ${JSON.stringify({ diagnosis, gold })};
      const closed = createDirectoryScorer({ root: ${JSON.stringify(root)} });
      const first = await closed.score(input);
      await closed.close();
      const open = createDirectoryScorer({ root: ${JSON.stringify(root)} });
      const second = await open.score(input);
      process.stdout.write(JSON.stringify([first.metrics.blockCoverage, second.metrics.blockCoverage]));
    `;
    const marker = `DISTDEBUG_TEST_MARKER=${randomUUID()}`;
    const started = performance.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--conditions=@distdebug/source", "--import", "tsx", "--input-type=module", "-e", program],
      {
        cwd: fileURLToPath(new URL(".", import.meta.url)),
        env: { ...process.env, DISTDEBUG_TEST_MARKER: marker.split("=")[1] },
        timeout: 45_000,
      },
    );
    expect(JSON.parse(stdout)).toEqual([1, 1]);
    expect(performance.now() - started).toBeLessThan(45_000);
    await waitFor(() => processesMarked(marker).length === 0, 5_000);
    expect(processesMarked(marker)).toEqual([]);
  }, 90_000); // Two node processes with tsx (the program, its worker): slow on a loaded machine.
});
