import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadDataset } from "@distdebug/dataset";
import { parseRunConfig } from "@distdebug/schema";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runBenchmark } from "./run-benchmark.js";
import { scoreResults } from "./score-results.js";

// Gold labels are not an input of an attempt: relabeling an incident never reruns an agent,
// and score uses the gold as it is now.
describe("relabeling an incident", () => {
  it("keeps every finished attempt and rescores with the new gold", async () => {
    const root = await testdir();
    const id = "taskq-219";
    await cp(join(exampleDatasetDir(), id), join(root, id), { recursive: true });
    const index = JSON.parse(await readFile(join(exampleDatasetDir(), "dataset.json"), "utf8"));
    await writeFile(join(root, "dataset.json"), JSON.stringify({ ...index, incidents: [id] }));
    const config = parseRunConfig({ name: "baseline", agent: { type: "baseline" } });
    const cacheDir = await testdir();
    const outDir = join(await testdir(), "results");
    const first = await runBenchmark({
      config,
      dataset: await loadDataset(root),
      outDir,
      cacheDir,
      attempts: 1,
    });
    expect(first.ran).toBe(1);
    const before = await scoreResults({ outDir, dataset: await loadDataset(root), cacheDir });

    // Move the label to a block the baseline did not name.
    const goldPath = join(root, id, "gold.json");
    const gold = JSON.parse(await readFile(goldPath, "utf8"));
    gold.blocks = [{ path: gold.blocks[0].path, startLine: 1, endLine: 1, note: "relabeled" }];
    await writeFile(goldPath, JSON.stringify(gold));

    const relabeled = await loadDataset(root);
    const second = await runBenchmark({
      config,
      dataset: relabeled,
      outDir,
      cacheDir,
      attempts: 1,
    });
    expect(second.ran).toBe(0);
    expect(second.reused).toBe(1);
    const after = await scoreResults({ outDir, dataset: relabeled, cacheDir });
    expect(after.stale).toEqual([]);
    expect(after.changed).toBe(1);
    expect(after.summary).not.toEqual(before.summary);
  }, 180_000);
});
