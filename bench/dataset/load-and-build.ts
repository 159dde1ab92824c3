/**
 * Dataset speed: check/load the example dataset, its digest, and building every incident's
 * repository into a fresh cache, then again from the cache. Prints milliseconds.
 *
 *   node --conditions=@distdebug/source --import tsx bench/dataset/load-and-build.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildIncidentRepository,
  checkDataset,
  datasetDigest,
  loadDataset,
} from "@distdebug/dataset";

const examples = fileURLToPath(new URL("../../examples/dataset", import.meta.url));

async function time<T>(label: string, runs: number, fn: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    result = await fn();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  console.log(`${label.padEnd(44)} median ${median.toFixed(1)} ms over ${runs} runs`);
  return result as T;
}

await time("checkDataset(examples/dataset)", 5, () => checkDataset(examples));
const dataset = await time("loadDataset(examples/dataset)", 5, () => loadDataset(examples));
await time("datasetDigest(examples/dataset)", 5, () => datasetDigest(examples));
const cacheDir = await mkdtemp(join(tmpdir(), "distdebug-bench-"));
try {
  await time(`build ${dataset.incidents.length} repositories, cold cache`, 1, async () => {
    for (const entry of dataset.incidents) await buildIncidentRepository(entry, { cacheDir });
  });
  await time(`build ${dataset.incidents.length} repositories, warm cache`, 5, async () => {
    for (const entry of dataset.incidents) await buildIncidentRepository(entry, { cacheDir });
  });
} finally {
  await rm(cacheDir, { recursive: true, force: true });
}
