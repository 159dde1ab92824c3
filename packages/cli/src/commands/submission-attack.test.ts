import { cp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { serialize, sha256Hex } from "@distdebug/schema";
import { readTarGz, writeTarGz } from "@distdebug/submission";
import { type BaselineResults, baselineResults } from "@distdebug/test-fixtures";
import { rawTarGz, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

let fixture: BaselineResults;
let archive: string;

/** Two incidents of the example dataset, two baseline attempts each, scored and packaged. */
beforeAll(async () => {
  fixture = await baselineResults("attack", await testdir(), ["zklite-142", "zklite-188"]);
  archive = join(await testdir(), "submission.tar.gz");
  const io = captureIO();
  expect(await runCli(["package", fixture.resultsDir, "--out", archive], io)).toBe(0);
}, 240_000);

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const io = captureIO();
  const code = await runCli(args, io);
  return { code, out: io.out() + io.err() };
}

const verify = (file: string) =>
  cli(["verify", file, "--dataset", fixture.datasetDir, "--cache-dir", fixture.cacheDir]);
const score = (dir: string) =>
  cli(["score", dir, "--dataset", fixture.datasetDir, "--cache-dir", fixture.cacheDir]);

/** Every file of a results folder by relative path. */
async function folderFiles(dir: string, prefix = ""): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const name of (await readdir(join(dir, prefix))).sort()) {
    const path = prefix ? `${prefix}/${name}` : name;
    if ((await stat(join(dir, path))).isDirectory())
      for (const [inner, data] of await folderFiles(dir, path)) files.set(inner, data);
    else files.set(path, await readFile(join(dir, path)));
  }
  return files;
}

/** What a forger does: an archive of a (changed) folder with manifest.json recomputed to match. */
async function forgeArchive(dir: string): Promise<string> {
  const original = readTarGz(await readFile(archive));
  const manifest = JSON.parse(
    Buffer.from(original.find((entry) => entry.path === "manifest.json")!.data).toString("utf8"),
  );
  const files = [...(await folderFiles(dir))].map(([path, data]) => ({ path, data }));
  const incidents = new Set(
    files
      .map((file) => file.path.split("/")[0])
      .filter((p) => p !== "run.json" && p !== "summary.json"),
  );
  const attempts = files.filter((file) => file.path.endsWith("/attempt.json")).length;
  manifest.counts = {
    ...manifest.counts,
    incidents: incidents.size,
    attempts,
    attemptsPerIncident: attempts / incidents.size,
  };
  manifest.files = files.map((file) => ({
    path: file.path,
    sha256: sha256Hex(file.data),
    bytes: file.data.length,
  }));
  const out = join(await testdir(), "forged.tar.gz");
  await writeFile(
    out,
    writeTarGz([{ path: "manifest.json", data: Buffer.from(serialize(manifest)) }, ...files]),
  );
  return out;
}

/** A copy of the results folder, changed by `edit`, then rescored as a forger would (no --dataset). */
async function tamperedCopy(edit: (dir: string) => Promise<void>): Promise<string> {
  const dir = join(await testdir(), "baseline");
  await cp(fixture.resultsDir, dir, { recursive: true });
  await edit(dir);
  const rescored = await cli(["score", dir, "--cache-dir", fixture.cacheDir]);
  expect(rescored.code).toBe(0);
  return dir;
}

const dropIncident = (dir: string) => rm(join(dir, "zklite-188"), { recursive: true });
async function dropAttempt(dir: string): Promise<void> {
  for (const id of ["zklite-142", "zklite-188"])
    await rm(join(dir, id, "attempt-2"), { recursive: true });
}
async function replaceDiagnosis(dir: string): Promise<void> {
  const gold = JSON.parse(await readFile(join(fixture.datasetDir, "zklite-142/gold.json"), "utf8"));
  await writeFile(
    join(dir, "zklite-142/attempt-1/diagnosis.json"),
    serialize({
      format: "distdebug.diagnosis/1",
      incidentId: "zklite-142",
      blocks: gold.blocks.map((block: { path: string; startLine: number; endLine: number }) => ({
        path: block.path,
        startLine: block.startLine,
        endLine: block.endLine,
      })),
    }),
  );
}

describe("verify --dataset and score --dataset refuse incomplete or rewritten submissions", () => {
  it("accepts the honest archive and folder", async () => {
    expect(await verify(archive)).toMatchObject({ code: 0 });
    expect(await score(fixture.resultsDir)).toMatchObject({ code: 0 });
  });

  const cases: [string, (dir: string) => Promise<void>, string][] = [
    [
      "an incident removed",
      dropIncident,
      "zklite-188: missing (an incident of the dataset; the submission has no attempt)",
    ],
    [
      "an attempt removed",
      dropAttempt,
      "zklite-142/attempt-2/attempt.json: missing (the run config has run.attempts 2)",
    ],
    [
      "a diagnosis replaced after the run, scores and manifest recomputed",
      replaceDiagnosis,
      "zklite-142/attempt-1/diagnosis.json: changed after the run (sha256 ",
    ],
  ];
  for (const [name, edit, reason] of cases) {
    it(`verify: ${name}`, async () => {
      const forged = await forgeArchive(await tamperedCopy(edit));
      const result = await verify(forged);
      expect(result.code).toBe(1);
      expect(result.out).toContain(`refused   ${reason}`);
    });
    it(`score: ${name}`, async () => {
      const dir = await tamperedCopy(edit);
      const result = await score(dir);
      expect(result.code).toBe(1);
      expect(result.out).toContain(`refused  ${reason}`);
    });
  }

  it("best of N: a submission that kept one attempt per incident and set run.attempts 1 passes only until the benchmark's count is required (--attempts)", async () => {
    const bestOfTwo = async (dir: string) => {
      await dropAttempt(dir);
      const run = JSON.parse(await readFile(join(dir, "run.json"), "utf8"));
      run.config.run.attempts = 1;
      await writeFile(join(dir, "run.json"), serialize(run));
    };
    const dir = await tamperedCopy(bestOfTwo);
    const forged = await forgeArchive(dir);
    expect((await verify(forged)).code).toBe(0);
    const required =
      "zklite-142/attempt-2/attempt.json: missing (2 attempts per incident are required; the run config has run.attempts 1)";
    const requireTwo = [
      "--dataset",
      fixture.datasetDir,
      "--attempts",
      "2",
      "--cache-dir",
      fixture.cacheDir,
    ];
    const verified = await cli(["verify", forged, ...requireTwo]);
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`refused   ${required}`);
    const scored = await cli(["score", dir, ...requireTwo]);
    expect(scored.code).toBe(1);
    expect(scored.out).toContain(`refused  ${required}`);
  });

  const unsafe: [string, Parameters<typeof rawTarGz>[0], string][] = [
    [
      "a file where a folder is expected",
      [{ path: "zklite-142/attempt-1/diagnosis.json/x" }],
      // Refused by the results layout before the file-for-folder check would see it.
      "zklite-142/attempt-1/diagnosis.json/x: not a file of the results layout",
    ],
    [
      "an alias",
      [{ path: "zklite-142/./attempt-1/diagnosis.json" }],
      "zklite-142/./attempt-1/diagnosis.json: an alias path",
    ],
    [
      "a link to the gold",
      [{ path: "zklite-142/attempt-1/diagnosis.json", type: "2", linkName: "../../gold.json" }],
      "zklite-142/attempt-1/diagnosis.json: a symbolic link",
    ],
    ["a climb", [{ path: "../../etc/cron.d/x" }], "../../etc/cron.d/x: a path with .."],
  ];
  for (const [name, extra, reason] of unsafe)
    it(`verify refuses ${name} in one line naming the entry`, async () => {
      const entries = readTarGz(await readFile(archive)).map((entry) => ({ ...entry }));
      const file = join(await testdir(), "unsafe.tar.gz");
      await writeFile(file, rawTarGz([...entries, ...extra]));
      const result = await verify(file);
      expect(result.code).toBe(1);
      expect(result.out).toContain(reason);
      expect(result.out).not.toMatch(/EEXIST|ENOTDIR| {4}at /);
    });
});

describe("package refuses an incomplete or inconsistent results folder", () => {
  const pack = async (dir: string) =>
    cli([
      "package",
      dir,
      "--dataset",
      fixture.datasetDir,
      "--out",
      join(await testdir(), "out.tar.gz"),
    ]);

  it("names an incident of the run's dataset that the folder lacks", async () => {
    const dir = join(await testdir(), "baseline");
    await cp(fixture.resultsDir, dir, { recursive: true });
    await dropIncident(dir);
    const result = await pack(dir);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`${dir}/zklite-188/attempt-1/attempt.json: missing`);
  });

  it("names a diagnosis replaced after the run (scores recomputed)", async () => {
    const dir = await tamperedCopy(replaceDiagnosis);
    const result = await pack(dir);
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      `${dir}/zklite-142/attempt-1/diagnosis.json: changed after the run (sha256 `,
    );
  });

  it("names every invalid diagnosis with every issue, one line each", async () => {
    const dir = join(await testdir(), "baseline");
    await cp(fixture.resultsDir, dir, { recursive: true });
    const bad = serialize({
      format: "distdebug.diagnosis/1",
      incidentId: "zklite-142",
      blocks: [{ path: "", startLine: 0, endLine: -1 }],
    });
    for (const attempt of [1, 2])
      await writeFile(join(dir, `zklite-142/attempt-${attempt}/diagnosis.json`), bad);
    const result = await pack(dir);
    expect(result.code).toBe(1);
    const lines = result.out.split("\n").filter((line) => line.includes("$.blocks[0]"));
    expect(lines).toHaveLength(2);
    for (const [index, line] of lines.entries()) {
      expect(line).toContain(`zklite-142/attempt-${index + 1}/diagnosis.json`);
      expect(line).toContain("$.blocks[0].startLine");
      expect(line).toContain("$.blocks[0].endLine");
    }
  });
});
