import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type DatasetIncident, loadDataset } from "@distdebug/dataset";
import { createEvaluator, type Definition, directoryReader } from "@distdebug/evaluator";
import { prepareIncident } from "@distdebug/runner";
import type { GoldBlock } from "@distdebug/schema";
import { parseDiagnosisScores } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

/** The innermost function, method or constructor holding lines `[start, end]`. */
function enclosingCallable(
  definitions: Definition[],
  start: number,
  end: number,
): Definition | undefined {
  return definitions
    .filter((d) => d.callable && d.startLine <= start && end <= d.endLine)
    .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
}

/** One example incident checked out at its buggy revision, its gold written beside it. */
async function checkout(incident: DatasetIncident, work: string) {
  const prepared = await prepareIncident({ incident, cacheDir: join(work, "cache") });
  const gold = prepared.gold;
  if (!gold) throw new Error(`${incident.id} has no gold`);
  const dir = join(work, incident.id);
  await prepared.materialize(join(dir, "source"));
  await writeFile(join(dir, "gold.json"), JSON.stringify(gold));
  /** `distdebug evaluate` of a diagnosis of these blocks. */
  const evaluate = async (blocks: Pick<GoldBlock, "path" | "startLine" | "endLine">[]) => {
    await writeFile(
      join(dir, "diagnosis.json"),
      JSON.stringify({ format: "distdebug.diagnosis/1", incidentId: incident.id, blocks }),
    );
    const io = captureIO({ cwd: dir });
    const args = ["--gold", "gold.json", "--diagnosis", "diagnosis.json", "--source", "source"];
    expect(await runCli(["evaluate", ...args], io)).toBe(0);
    return parseDiagnosisScores(io.out());
  };
  return { gold, source: join(dir, "source"), evaluate };
}

describe("honest answers on the example incidents, through distdebug evaluate", async () => {
  const dataset = await loadDataset(join(repoRoot, "examples/dataset"));
  const work = await testdir();
  const checkouts = new Map<string, ReturnType<typeof checkout>>();
  const once = (incident: DatasetIncident) => {
    let pending = checkouts.get(incident.id);
    if (!pending) {
      pending = checkout(incident, work);
      checkouts.set(incident.id, pending);
    }
    return pending;
  };

  for (const incident of dataset.incidents) {
    it(`${incident.id}: the gold itself scores 100 coverage and 100 precision`, async () => {
      const { gold, evaluate } = await once(incident);
      const own = await evaluate(
        gold.blocks.map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
      );
      expect(own.valid).toBe(true);
      expect(own.warnings).toEqual([]);
      expect(own.metrics.blockCoverage).toBe(1);
      expect(own.metrics.blockPrecision).toBe(1);
      expect(own.metrics.reachedAll).toBe(true);
    });

    it(`${incident.id}: the gold widened to its enclosing methods reaches every block whose method has at most 40 rows`, async () => {
      const { gold, source, evaluate } = await once(incident);
      const evaluator = createEvaluator({ readFile: directoryReader(source) });
      const widened = [];
      for (const block of gold.blocks) {
        const method = enclosingCallable(
          await evaluator.definitions(block.path),
          block.startLine,
          block.endLine,
        );
        widened.push(
          method ? { ...block, startLine: method.startLine, endLine: method.endLine } : block,
        );
      }
      const wide = await evaluate(widened);
      gold.blocks.forEach((block, at) => {
        const span = wide.spans[at];
        if (span && span.rows <= 40)
          expect(
            wide.goldBlocks[at]?.reached,
            `${block.path}:${block.startLine} widened to ${span.startLine}-${span.endLine} (${span.rows} rows; R ${wide.counts.repositoryRows}, B ${wide.counts.coverageBudget})`,
          ).toBe(true);
      });
    });
  }
});
