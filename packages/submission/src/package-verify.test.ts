import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Dataset } from "@distdebug/dataset";
import { parseTrajectory, serialize, sha256Hex } from "@distdebug/schema";
import { baselineResults } from "@distdebug/test-fixtures";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { packageResults } from "./package-results.js";
import { readTarGz, writeTarGz } from "./tar.js";
import { verifySubmission } from "./verify-submission.js";

let dataset: Dataset;
let cacheDir: string;
let resultsDir: string;

/** A one-incident copy of the example dataset, run twice by the baseline agent and scored. */
beforeAll(async () => {
  ({ dataset, resultsDir, cacheDir } = await baselineResults("submission-test", await testdir()));
}, 120_000);

describe("packageResults and verifySubmission", () => {
  it("package then verify round trip: checksums hold and rescoring reproduces every score", async () => {
    const archive = join(await testdir(), "submission.tar.gz");
    const packaged = await packageResults({
      resultsDir,
      outFile: archive,
      now: new Date("2026-12-02T12:00:00Z"),
    });
    expect(packaged.problems).toEqual([]);
    expect(packaged.findings).toEqual([]);
    expect(packaged.ok).toBe(true);
    const manifest = packaged.manifest!;
    expect(manifest.name).toBe("baseline");
    expect(manifest.counts).toEqual({
      incidents: 1,
      attempts: 2,
      attemptsPerIncident: 2,
      failedAttempts: 0,
    });
    expect(manifest.dataset.digest).toBe(dataset.digest);
    expect(manifest.files.map((file) => file.path)).toEqual([
      "run.json",
      "summary.json",
      "zklite-142/attempt-1/attempt.json",
      "zklite-142/attempt-1/diagnosis.json",
      "zklite-142/attempt-1/diagnosis_scores.json",
      "zklite-142/attempt-1/trajectory.json",
      "zklite-142/attempt-2/attempt.json",
      "zklite-142/attempt-2/diagnosis.json",
      "zklite-142/attempt-2/diagnosis_scores.json",
      "zklite-142/attempt-2/trajectory.json",
    ]);
    const verified = await verifySubmission({ archive, dataset, cacheDir });
    expect(verified.checksums).toEqual([]);
    expect(verified.differences).toEqual([]);
    expect(verified.stale).toEqual([]);
    expect(verified.rescored).toBe(true);
    expect(verified.ok).toBe(true);
  });

  it("names a tampered file by its checksum, and a forged score by rescoring", async () => {
    const archive = join(await testdir(), "submission.tar.gz");
    await packageResults({ resultsDir, outFile: archive });
    const entries = readTarGz(await readFile(archive));
    const target = "zklite-142/attempt-1/diagnosis_scores.json";
    const forged = entries.map((entry) => {
      if (entry.path !== target) return entry;
      const scores = JSON.parse(Buffer.from(entry.data).toString("utf8"));
      scores.metrics.blockCoverage = scores.metrics.blockCoverage === 1 ? 0.5 : 1;
      return { path: entry.path, data: Buffer.from(serialize(scores)) };
    });
    await writeFile(archive, writeTarGz(forged));
    const verified = await verifySubmission({ archive, dataset, cacheDir });
    expect(verified.ok).toBe(false);
    expect(verified.checksums).toEqual([
      expect.objectContaining({ path: target, problem: "checksum-mismatch" }),
    ]);
    expect(verified.differences.map((difference) => difference.path)).toContain(target);
    expect(verified.differences.find((difference) => difference.path === target)?.detail).toMatch(
      /^metrics\.blockCoverage: packaged (1|0\.5), rescored /,
    );
  });

  it("verifies a folder of an earlier release: scores without inputHash, metrics in attempt.json", async () => {
    const copy = join(await testdir(), "baseline");
    await cp(resultsDir, copy, { recursive: true });
    for (const attempt of [1, 2]) {
      const dir = join(copy, `zklite-142/attempt-${attempt}`);
      const scores = JSON.parse(await readFile(join(dir, "diagnosis_scores.json"), "utf8"));
      delete scores.inputHash;
      await writeFile(join(dir, "diagnosis_scores.json"), serialize(scores));
      const record = JSON.parse(await readFile(join(dir, "attempt.json"), "utf8"));
      record.metrics = scores.metrics;
      record.outputs["diagnosis_scores.json"] = sha256Hex(serialize(scores));
      await writeFile(join(dir, "attempt.json"), serialize(record));
    }
    const archive = join(await testdir(), "earlier.tar.gz");
    expect((await packageResults({ resultsDir: copy, outFile: archive })).problems).toEqual([]);
    const verified = await verifySubmission({ archive, dataset, cacheDir });
    expect(verified.differences).toEqual([]);
    expect(verified.ok).toBe(true);
  });

  it("flags a trajectory that ran git log --all and writes no archive", async () => {
    const copy = join(await testdir(), "baseline");
    await cp(resultsDir, copy, { recursive: true });
    const path = join(copy, "zklite-142/attempt-2/trajectory.json");
    const trajectory = parseTrajectory(await readFile(path, "utf8"));
    trajectory.steps.push({
      type: "command",
      command: "cd /workspace && git log --all -p",
      exitCode: 0,
      output: "",
    });
    await writeFile(path, serialize(trajectory));
    // as if the agent itself had run it: attempt.json records the trajectory's hash
    const recordPath = join(path, "../attempt.json");
    const record = JSON.parse(await readFile(recordPath, "utf8"));
    record.outputs["trajectory.json"] = sha256Hex(serialize(trajectory));
    await writeFile(recordPath, serialize(record));
    const archive = join(await testdir(), "leaky.tar.gz");
    const result = await packageResults({ resultsDir: copy, outFile: archive });
    expect(result.ok).toBe(false);
    expect(result.archive).toBeUndefined();
    expect(result.findings).toEqual([
      expect.objectContaining({
        incidentId: "zklite-142",
        attempt: 2,
        kind: "history",
        command: "cd /workspace && git log --all -p",
      }),
    ]);
    await expect(readFile(archive)).rejects.toThrow(/ENOENT/);
    const allowed = await packageResults({ resultsDir: copy, outFile: archive, allowLeaks: true });
    expect(allowed.ok).toBe(true);
    expect(allowed.manifest?.leakage.findings).toHaveLength(1);
  });

  it("asks for the dataset when the run's dataset folder is not on this machine", async () => {
    const copy = join(await testdir(), "baseline");
    await cp(resultsDir, copy, { recursive: true });
    const run = JSON.parse(await readFile(join(copy, "run.json"), "utf8"));
    run.dataset.path = "/nonexistent/dataset";
    await writeFile(join(copy, "run.json"), serialize(run));
    const archive = join(await testdir(), "moved.tar.gz");
    expect((await packageResults({ resultsDir: copy, outFile: archive })).ok).toBe(true);
    await expect(verifySubmission({ archive, cacheDir })).rejects.toThrow(
      "the run's dataset folder /nonexistent/dataset is not on this machine, so pass it (distdebug verify --dataset <dir>)",
    );
    const verified = await verifySubmission({ archive, dataset, cacheDir });
    expect(verified.ok).toBe(true);
  });

  it("names every missing attempt file and unfinished attempt", async () => {
    const copy = join(await testdir(), "baseline");
    await cp(resultsDir, copy, { recursive: true });
    await writeFile(join(copy, "zklite-142/attempt-1/diagnosis.json"), "{ not json");
    const result = await packageResults({
      resultsDir: copy,
      attempts: 3,
      incidents: ["zklite-142"],
    });
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      expect.stringMatching(/^.*zklite-142\/attempt-1\/diagnosis\.json: not valid JSON/),
      `${join(copy, "zklite-142/attempt-3/attempt.json")}: missing`,
      `${join(copy, "zklite-142/attempt-3/trajectory.json")}: missing`,
      `${join(copy, "zklite-142/attempt-3/diagnosis.json")}: missing`,
      expect.stringMatching(
        /zklite-142\/attempt-1\/diagnosis\.json: changed after the run \(sha256 [0-9a-f]{64}, attempt\.json records [0-9a-f]{64}\)$/,
      ),
    ]);
  });
});
