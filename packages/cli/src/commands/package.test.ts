import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseTrajectory, serialize, sha256Hex } from "@distdebug/schema";
import { readTarGz, writeTarGz } from "@distdebug/submission";
import { baselineResults } from "@distdebug/test-fixtures";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

let datasetDir: string;
let resultsDir: string;
let cacheDir: string;

/** A one-incident copy of the example dataset, run twice by the baseline agent and scored. */
beforeAll(async () => {
  ({ datasetDir, resultsDir, cacheDir } = await baselineResults("package-test", await testdir()));
}, 120_000);

describe("distdebug package and distdebug verify", () => {
  it("packages a results folder, verifies it, and names a tampered file", async () => {
    const archive = join(await testdir(), "submission.tar.gz");
    const io = captureIO();
    expect(
      await runCli(["package", resultsDir, "--out", archive, "--dataset", datasetDir], io),
    ).toBe(0);
    expect(io.out()).toBe(`packaged 1 incidents, 2 attempts (11 files) into ${archive}\n`);

    const verified = captureIO({ env: { DISTDEBUG_CACHE_DIR: cacheDir } });
    expect(
      await runCli(["verify", archive, "--dataset", datasetDir, "--cache-dir", cacheDir], verified),
    ).toBe(0);
    expect(verified.out()).toBe(
      "ok        baseline: 1 incidents, 2 attempts, 10 files; checksums match and rescoring reproduces every score\n",
    );

    const entries = readTarGz(await readFile(archive)).map((entry) =>
      entry.path === "zklite-142/attempt-2/diagnosis.json"
        ? {
            path: entry.path,
            data: Buffer.from(
              serialize({ format: "distdebug.diagnosis/1", incidentId: "zklite-142", blocks: [] }),
            ),
          }
        : entry,
    );
    await writeFile(archive, writeTarGz(entries));
    const tampered = captureIO();
    expect(await runCli(["verify", archive, "--skip-rescore"], tampered)).toBe(1);
    expect(tampered.out()).toMatch(
      /^tampered {2}zklite-142\/attempt-2\/diagnosis\.json: changed since packaging \(sha256 differs from manifest\.json\)\nrefused {3}zklite-142\/attempt-2\/diagnosis\.json: changed after the run \(sha256 [0-9a-f]{64}, attempt\.json records [0-9a-f]{64}\)\n$/,
    );
    expect(tampered.err()).toBe(
      "verification failed: baseline: 1 incidents, 2 attempts, 10 files\n",
    );
  });

  it("refuses to package a trajectory that ran git log --all", async () => {
    const copy = join(await testdir(), "baseline");
    await cp(resultsDir, copy, { recursive: true });
    const path = join(copy, "zklite-142/attempt-1/trajectory.json");
    const trajectory = parseTrajectory(await readFile(path, "utf8"));
    trajectory.steps.push({
      type: "command",
      command: "git log --all --oneline",
      exitCode: 0,
      output: "",
    });
    await writeFile(path, serialize(trajectory));
    // as if the agent itself had run it: attempt.json records the trajectory's hash
    const recordPath = join(path, "../attempt.json");
    const record = JSON.parse(await readFile(recordPath, "utf8"));
    record.outputs["trajectory.json"] = sha256Hex(serialize(trajectory));
    await writeFile(recordPath, serialize(record));
    const io = captureIO();
    const archive = join(await testdir(), "leaky.tar.gz");
    expect(await runCli(["package", copy, "--out", archive], io)).toBe(1);
    expect(io.out()).toBe(
      `leak   zklite-142/attempt-1 step ${trajectory.steps.length - 1} [history]: git log --all reads history beyond the one commit\n         $ git log --all --oneline\n`,
    );
    expect(io.err()).toContain(
      "not packaged: 1 leak finding; rerun those attempts, or pass --allow-leaks",
    );
    const json = captureIO();
    expect(await runCli(["package", copy, "--out", archive, "--json"], json)).toBe(1);
    expect(JSON.parse(json.out())).toMatchObject({
      ok: false,
      archive: null,
      findings: [{ kind: "history" }],
    });
  });
});
