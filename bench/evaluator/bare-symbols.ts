/**
 * Cost of bare symbols on a large repository: a diagnosis of 20 common function names without
 * paths, scored on a generated repository of `--mb` MB in seven languages (by default 40 MB,
 * about Kafka's source size). A bare symbol is looked up repository-wide: the first pass reads
 * every source file once for the index of identifiers, then parses the files that hold one of
 * the names, each once; a second diagnosis with the same names reuses both. Prints wall-clock
 * and CPU seconds and the peak RSS; not a test.
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/bare-symbols.ts [--mb 40]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createEvaluator, directoryReader, listDirectoryFiles } from "@distdebug/evaluator";
import { COMMON_FUNCTION_NAMES } from "@distdebug/test-utils";
import { generateRepository, writeRepository } from "./generate.js";

const { values } = parseArgs({ options: { mb: { type: "string", default: "40" } } });
const files = generateRepository(Number(values.mb) * 1024 * 1024);
const dir = await mkdtemp(join(tmpdir(), "distdebug-bare-symbols-"));
try {
  await writeRepository(dir, files);
  const evaluator = createEvaluator({
    readFile: directoryReader(dir),
    listFiles: () => listDirectoryFiles(dir),
  });
  const first = files[0];
  if (!first) throw new Error("no file generated");
  const gold = { incidentId: "bench-1", blocks: [{ path: first.path, startLine: 1, endLine: 1 }] };
  const diagnosis = {
    format: "distdebug.diagnosis/1",
    incidentId: "bench-1",
    blocks: COMMON_FUNCTION_NAMES.map((symbol) => ({ symbol })),
  };
  await evaluator.repositorySize();
  console.log(`repository: ${files.length} files, ${values.mb} MB; 20 bare common names`);
  for (const pass of ["first pass", "again"]) {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const scores = await evaluator.score({ diagnosis, gold });
    const used = process.cpuUsage(cpu);
    const definitions = scores.spans.reduce((sum, span) => sum + span.definitions.length, 0);
    console.log(
      `${pass.padEnd(10)} ${((performance.now() - wall) / 1000).toFixed(2)} s (CPU ${((used.user + used.system) / 1e6).toFixed(2)} s); ${definitions} definitions, block coverage ${scores.metrics.blockCoverage}, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
