import { spawnSync } from "node:child_process";
import { appendFile, cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { cliNodeArgs } from "../testing/spawn-cli.js";

function cli(args: string[], cwd: string) {
  return spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
}

const FILES = ["attempt.json", "diagnosis.json", "diagnosis_scores.json", "trajectory.json"];

/** Every file of every attempt of these incidents, by path. */
async function attemptFiles(outDir: string, incidents: readonly string[]) {
  const files = new Map<string, Buffer>();
  for (const id of incidents)
    for (let attempt = 1; attempt <= 3; attempt++)
      for (const file of FILES) {
        const path = join(id, `attempt-${attempt}`, file);
        files.set(path, await readFile(join(outDir, path)));
      }
  return files;
}

/** Adds a copy of `from` as incident `id` to the dataset folder. */
async function addIncident(datasetDir: string, from: string, id: string): Promise<void> {
  await cp(join(datasetDir, from), join(datasetDir, id), { recursive: true });
  for (const file of ["incident.json", "gold.json"]) {
    const path = join(datasetDir, id, file);
    const value = JSON.parse(await readFile(path, "utf8"));
    if (file === "incident.json") value.id = id;
    else value.incidentId = id;
    await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
  }
  const indexPath = join(datasetDir, "dataset.json");
  const index = JSON.parse(await readFile(indexPath, "utf8"));
  index.incidents.push(id);
  index.version = "1.1.0";
  await writeFile(indexPath, `${JSON.stringify(index, null, 2)}\n`);
}

describe("a dataset release keeps the finished attempts of unchanged incidents", () => {
  // Two baseline runs of the example dataset under the real sandbox (33, then 6 attempts) and
  // two scorings: about a minute on a quiet 2-core machine, more when it is shared.
  it("editing one report and adding one incident reruns exactly those 3 + 3 attempts", {
    timeout: 400_000,
  }, async () => {
    const work = await testdir();
    const datasetDir = join(work, "dataset");
    await cp(exampleDatasetDir(), datasetDir, { recursive: true });
    const args = [
      "run",
      "--agent",
      "baseline",
      "--runs",
      "3",
      "--dataset",
      "dataset",
      "--out",
      "results/baseline",
      "--cache-dir",
      "cache",
    ];
    const score = ["score", "results/baseline", "--attempts", "3", "--cache-dir", "cache"];
    const first = cli(args, work);
    expect(first.stderr).toContain("33 attempts run, 0 reused");
    expect(first.status).toBe(0);
    expect(cli(score, work).status).toBe(0);
    const index = JSON.parse(await readFile(join(datasetDir, "dataset.json"), "utf8"));
    const untouched = (index.incidents as string[]).filter((id) => id !== "zklite-142");
    const outDir = join(work, "results/baseline");
    const before = await attemptFiles(outDir, untouched);

    await appendFile(
      join(datasetDir, "zklite-142/report.md"),
      "\nThe same happens with four servers.\n",
    );
    await addIncident(datasetDir, "raftkv-311", "raftkv-312");
    const second = cli(args, work);
    expect(second.stderr).toContain("6 attempts run, 30 reused");
    expect(second.status).toBe(0);
    const rescored = cli(score, work);
    expect(rescored.status).toBe(0);

    const after = await attemptFiles(outDir, untouched);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
    const summary = JSON.parse(await readFile(join(outDir, "summary.json"), "utf8"));
    expect(summary.counts).toMatchObject({ incidents: 12, attempts: 36 });
  });
});
