/**
 * Scoring cost of a flood of symbol blocks: 10,000 `{ symbol: "run" }` blocks (a diagnosis made
 * valid by raising `maxDiagnosisBlocks`) scored on every example incident, with a fresh
 * evaluator each (files parsed in the pass) and again on the same one (files cached). Prints
 * wall-clock and CPU seconds (the CPU time of this process moves less on a shared machine);
 * not a test.
 *
 * With `--shape parens|receivers|nested --length N`, the symbol is a hostile one of N characters
 * whose split was quadratic before evaluator 0.3.0 (200,000 open parentheses: 81 s per file
 * searched; 66,666 `.( `: 51 s); over 1,000 characters it is an invalid diagnosis now.
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/symbol-flood.ts [--blocks 10000] [--symbol run]
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/symbol-flood.ts --blocks 1 --shape parens --length 200000
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { createEvaluator, directoryReader } from "@distdebug/evaluator";
import { exampleIncidents } from "./examples.js";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "10000" },
    symbol: { type: "string", default: "run" },
    shape: { type: "string" },
    length: { type: "string", default: "1000" },
  },
});
const count = Number(values.blocks);
const length = Number(values.length);
const shapes: Record<string, () => string> = {
  parens: () => "(".repeat(length),
  receivers: () => ".( ".repeat(Math.floor(length / 3)),
  nested: () => `${"<".repeat(Math.floor(length / 2))}${">".repeat(Math.floor(length / 2))}`,
};
const shaped = values.shape === undefined ? undefined : shapes[values.shape];
if (values.shape !== undefined && !shaped)
  throw new Error(`--shape: one of ${Object.keys(shapes).join(", ")}`);
const symbol = shaped ? shaped() : (values.symbol as string);

const { root, incidents } = await exampleIncidents();
try {
  const shown = symbol.length > 40 ? `${values.shape} of ${symbol.length} characters` : symbol;
  console.log(`${count} blocks { symbol: ${JSON.stringify(shown)} } per diagnosis`);
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
    const timed = async () => {
      const wall = performance.now();
      const cpu = process.cpuUsage();
      const scores = await evaluator.score({ diagnosis, gold: incident.gold });
      const used = process.cpuUsage(cpu);
      return {
        scores,
        wall: (performance.now() - wall) / 1000,
        cpu: (used.user + used.system) / 1e6,
      };
    };
    const first = await timed();
    const again = await timed();
    worst = Math.max(worst, first.wall);
    console.log(
      `${incident.id.padEnd(16)} first pass ${first.wall.toFixed(3)} s (CPU ${first.cpu.toFixed(3)} s), cached ${again.wall.toFixed(3)} s (CPU ${again.cpu.toFixed(3)} s); valid ${first.scores.valid}, ${first.scores.spans[0]?.definitions.length ?? 0} definitions per block`,
    );
  }
  console.log(`slowest first pass: ${worst.toFixed(3)} s`);
} finally {
  await rm(root, { recursive: true, force: true });
}
