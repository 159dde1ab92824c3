import { join } from "node:path";
import { buildIncidentRepository, loadDataset, loadGold } from "@distdebug/dataset";
import { createEvaluator, directoryReader } from "@distdebug/evaluator";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { checkLeakage, prepareWorkspace } from "@distdebug/workspace";
import { describe, expect, it } from "vitest";

const examples = exampleDatasetDir();

describe("every example incident end to end", async () => {
  const dataset = await loadDataset(examples);
  const cacheDir = await testdir();
  for (const entry of dataset.incidents) {
    it(`${entry.id}: builds, prepares a clean workspace, and its gold scores 1/1`, async () => {
      const gold = (await loadGold(entry))!;
      const built = await buildIncidentRepository(entry, { cacheDir });
      const dir = join(await testdir(), "repo");
      const prepared = await prepareWorkspace({
        source: built.gitdir,
        commit: built.buggyCommit,
        dir,
        needles: gold.needles,
        cacheDir,
      });
      expect(prepared.sourceCommit).toBe(entry.incident.repository.buggyCommit);
      expect(prepared.replacements).toEqual([]);

      const leakage = await checkLeakage({
        dir,
        needles: gold.needles,
        fix: { repo: built.gitdir, commit: gold.fix.commit, buggyCommit: built.buggyCommit },
      });
      expect(leakage.findings).toEqual([]);
      expect(leakage.clean).toBe(true);

      const evaluator = createEvaluator({ readFile: directoryReader(dir) });
      const scores = await evaluator.score({
        diagnosis: {
          format: "distdebug.diagnosis/1",
          incidentId: entry.id,
          blocks: gold.blocks.map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
        },
        gold,
      });
      expect(scores.valid).toBe(true);
      expect(scores.warnings ?? []).toEqual([]);
      expect(scores.metrics.blockCoverage).toBe(1);
      expect(scores.metrics.blockPrecision).toBe(1);
      expect(scores.metrics.reachedAll).toBe(true);
    });
  }

  it("the leakage check does see the history the workspace strips", async () => {
    const entry = dataset.incidents[0]!;
    const gold = (await loadGold(entry))!;
    const built = await buildIncidentRepository(entry, { cacheDir });
    const report = await checkLeakage({ dir: built.gitdir, needles: gold.needles });
    expect(report.clean).toBe(false);
  });
});
