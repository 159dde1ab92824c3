/**
 * Scoring cost of a flood of symbol blocks: 10,000 `{ symbol: "run" }` blocks (a diagnosis made
 * valid by raising `maxDiagnosisBlocks`) scored on every example incident, with a fresh
 * evaluator each (files parsed in the pass) and again on the same one (files cached). Prints
 * seconds; not a test.
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/symbol-flood.ts [--blocks 10000] [--symbol run]
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { createEvaluator, directoryReader } from "@distdebug/evaluator";
import { exampleIncidents } from "./examples.js";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "10000" },
    symbol: { type: "string", default: "run" },
  },
});
const count = Number(values.blocks);
const symbol = values.symbol as string;

const { root, incidents } = await exampleIncidents();
try {
  console.log(`${count} blocks { symbol: ${JSON.stringify(symbol)} } per diagnosis`);
  let worst = 0;
  for (const incident of incidents) {
    const evaluator = createEvaluator({
      readFile: directoryReader(incident.dir),
      listFiles: async () => incident.files,
      maxDiagnosisBlocks: count,
    });
    const diagnosis = {
      format: "distdebug.diagnosis/1",
      incidentId: incident.id,
      blocks: Array.from({ length: count }, () => ({ symbol })),
    };
    const first = performance.now();
    const scores = await evaluator.score({ diagnosis, gold: incident.gold });
    const firstSeconds = (performance.now() - first) / 1000;
    const again = performance.now();
    await evaluator.score({ diagnosis, gold: incident.gold });
    const againSeconds = (performance.now() - again) / 1000;
    worst = Math.max(worst, firstSeconds);
    console.log(
      `${incident.id.padEnd(16)} first pass ${firstSeconds.toFixed(3)} s, cached ${againSeconds.toFixed(3)} s (valid ${scores.valid}, ${scores.spans[0]?.definitions.length ?? 0} definitions per block)`,
    );
  }
  console.log(`slowest first pass: ${worst.toFixed(3)} s`);
} finally {
  await rm(root, { recursive: true, force: true });
}
