import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type Attempt, SandboxPolicy, serialize } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { FINISHED_STATUSES, isFinished } from "./attempt-status.js";
import { attemptFileProblem, readAttempt } from "./read-attempt.js";

const RECORD: Attempt = {
  format: "distdebug.attempt/1",
  incidentId: "a-1",
  attempt: 1,
  status: "succeeded",
  startedAt: "2026-12-02T10:00:00.000Z",
  endedAt: "2026-12-02T10:00:01.000Z",
  durationMs: 1000,
  timings: {},
  usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null },
  inputHash: "c".repeat(64),
  outputs: {},
  sandbox: { backend: "bubblewrap", policy: SandboxPolicy.parse({}) },
};

describe("readAttempt", () => {
  it("reads each file once, capped and bounded, and names the file of every problem", async () => {
    const dir = await testdir({
      "attempt.json": serialize(RECORD),
      // Over the 1 MiB cap of a diagnosis: refused before it is read.
      "diagnosis.json": " ".repeat(1024 * 1024 + 1),
      // Deeper than the JSON limits: refused by the bounded parse, not by a stack overflow.
      "diagnosis_scores.json": `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    });
    const folder = await readAttempt(dir, { label: "a-1/attempt-1" });
    expect(folder.attempt).toMatchObject({ state: "valid", value: RECORD });
    expect(folder.diagnosis).toMatchObject({
      state: "invalid",
      path: "a-1/attempt-1/diagnosis.json",
      error: { code: "FILE_TOO_LARGE" },
    });
    expect(attemptFileProblem(folder.diagnosis)).toMatch(
      /^a-1\/attempt-1\/diagnosis\.json: the file is 1\.0 MiB, over the 1\.0 MiB limit/,
    );
    expect(folder.scores).toMatchObject({ state: "invalid", error: { code: "INVALID_FILE" } });
    expect(attemptFileProblem(folder.scores)).toMatch(/^a-1\/attempt-1\/diagnosis_scores\.json: /);
    expect(folder.trajectory).toEqual({ state: "missing", path: "a-1/attempt-1/trajectory.json" });
    expect(attemptFileProblem(folder.trajectory)).toBe("a-1/attempt-1/trajectory.json: missing");
  });

  it("reads only the files asked for, and never waits on a FIFO", async () => {
    const dir = await testdir({ "attempt.json": "{}" });
    execFileSync("mkfifo", [join(dir, "trajectory.json")]);
    const folder = await readAttempt(dir, { files: ["attempt", "trajectory"] });
    expect(Object.keys(folder).sort()).toEqual(["attempt", "dir", "trajectory"]);
    expect(folder.trajectory).toMatchObject({ state: "invalid", error: { code: "NOT_A_FILE" } });
    // The schema's message lists what is wrong, with the file's path.
    expect(folder.attempt).toMatchObject({
      state: "invalid",
      bytes: Buffer.from("{}"),
      error: { code: "INVALID_FILE", message: expect.stringContaining(join(dir, "attempt.json")) },
    });
  });
});

describe("the finished statuses", () => {
  it("are the agent's own outcomes; the harness's faults are redone", () => {
    expect([...FINISHED_STATUSES].sort()).toEqual(["agent-error", "limit-exceeded", "succeeded"]);
    expect(isFinished("infra-error")).toBe(false);
    expect(isFinished("interrupted")).toBe(false);
  });
});
