import { spawnSync } from "node:child_process";
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadDataset } from "@distdebug/dataset";
import { type ScoreEvent, scoreResults } from "@distdebug/runner";
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

const INCIDENTS = ["taskq-219", "zklite-142"];

/** Every diagnosis_scores.json of the results folder, by path. */
async function scoreFiles(outDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const id of INCIDENTS)
    for (const attempt of [1, 2]) {
      const path = join(id, `attempt-${attempt}`, "diagnosis_scores.json");
      files.set(path, await readFile(join(outDir, path), "utf8"));
    }
  return files;
}

/** The cache folder's entries (absent: none), so a test sees what scoring made there. */
async function cacheEntries(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [])).sort();
}

describe("score reuses the scores whose inputs did not change", () => {
  // A baseline run of two incidents (4 sandboxed attempts) through the CLI and three scorings:
  // tens of seconds on a quiet 2-core machine, more when it is shared.
  it("reuses every attempt of a finished run without a workspace, rescores exactly a relabeled incident, and --rescore gives the same bytes", {
    timeout: 400_000,
  }, async () => {
    const work = await testdir();
    const datasetDir = join(work, "dataset");
    for (const id of INCIDENTS)
      await cp(join(exampleDatasetDir(), id), join(datasetDir, id), { recursive: true });
    const index = JSON.parse(await readFile(join(exampleDatasetDir(), "dataset.json"), "utf8"));
    await writeFile(
      join(datasetDir, "dataset.json"),
      JSON.stringify({ ...index, incidents: INCIDENTS }),
    );
    const run = cli(
      ["run", "--agent", "baseline", "--runs", "2", "--dataset", "dataset"].concat([
        "--out",
        "results",
        "--cache-dir",
        "cache",
      ]),
      work,
    );
    expect(run.status, run.stderr).toBe(0);
    const outDir = join(work, "results");
    // `score` gets a cache of its own: whatever it needs to open or copy shows there.
    const scoreCache = join(work, "score-cache");
    const asRun = await scoreFiles(outDir);

    // 1. A finished run: every attempt's scores were made by the run from the same inputs.
    const events: ScoreEvent[] = [];
    const first = await scoreResults({
      outDir,
      dataset: await loadDataset(datasetDir),
      cacheDir: scoreCache,
      onEvent: (event) => events.push(event),
    });
    expect({ reused: first.reused, rescored: first.rescored, changed: first.changed }).toEqual({
      reused: 4,
      rescored: 0,
      changed: 0,
    });
    expect(events.every((event) => event.reused && !event.changed)).toBe(true);
    expect(events).toHaveLength(4);
    // Nothing was opened, let alone a workspace prepared or copied.
    expect(await cacheEntries(scoreCache)).toEqual([]);
    expect(await scoreFiles(outDir)).toEqual(asRun);
    const reusedSummary = await readFile(join(outDir, "summary.json"), "utf8");

    // 2. Relabel one incident: exactly its attempts are scored again, from the object store.
    const goldPath = join(datasetDir, "taskq-219", "gold.json");
    const gold = JSON.parse(await readFile(goldPath, "utf8"));
    gold.blocks = [{ path: gold.blocks[0].path, startLine: 1, endLine: 1, note: "relabeled" }];
    await writeFile(goldPath, JSON.stringify(gold));
    events.length = 0;
    const relabeled = await scoreResults({
      outDir,
      dataset: await loadDataset(datasetDir),
      cacheDir: scoreCache,
      onEvent: (event) => events.push(event),
    });
    expect(relabeled.stale).toEqual([]);
    expect(
      events.filter((event) => !event.reused).map((e) => `${e.incidentId}/${e.attempt}`),
    ).toEqual(["taskq-219/1", "taskq-219/2"]);
    expect(relabeled.reused).toBe(2);
    expect(relabeled.rescored).toBe(2);
    // The repository was opened to read the revision; no workspace was made, no scratch left.
    expect(await cacheEntries(scoreCache)).not.toContain("workspaces");
    expect(await cacheEntries(join(scoreCache, "tmp"))).toEqual([]);
    const afterRelabel = await scoreFiles(outDir);
    for (const [path, text] of afterRelabel)
      if (path.startsWith("zklite-142")) expect(text).toBe(asRun.get(path));
      else expect(text).not.toBe(asRun.get(path));
    const relabeledSummary = await readFile(join(outDir, "summary.json"), "utf8");
    expect(relabeledSummary).not.toBe(reusedSummary);

    // 3. A full rescore through the CLI: every attempt scored, the same bytes everywhere.
    const full = cli(
      ["score", "results", "--dataset", "dataset", "--cache-dir", "score-cache"].concat([
        "--rescore",
        "--json",
      ]),
      work,
    );
    expect(full.status, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toMatchObject({ rescored: 4, reused: 0, changed: 0 });
    expect(await readFile(join(outDir, "summary.json"), "utf8")).toBe(relabeledSummary);
    expect(await scoreFiles(outDir)).toEqual(afterRelabel);
    expect(await cacheEntries(scoreCache)).not.toContain("workspaces");
  });
});
