import { cp, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { runBenchmark, scoreResults } from "@distdebug/runner";
import { parseRunConfig, serialize } from "@distdebug/schema";
import { exampleDatasetDir } from "@distdebug/test-utils";

/** A scored results folder made by {@link baselineResults}. */
export interface BaselineResults {
  /** The one-incident dataset folder. */
  datasetDir: string;
  dataset: Dataset;
  cacheDir: string;
  /** `<tmp>/baseline`: run.json, the attempts, summary.json. */
  resultsDir: string;
}

const exampleDir = exampleDatasetDir();

/**
 * For tests of tools that read results (report, package, verify): a copy of the example
 * dataset holding `incidents` (default only `zklite-142`), run twice by the offline baseline
 * agent under the real sandbox, and scored. Everything lives in fresh folders under `base`
 * (default the OS temp).
 *
 * @example
 * ```ts
 * import { baselineResults } from "@distdebug/test-fixtures";
 * const { resultsDir, cacheDir } = await baselineResults("report-test");
 * ```
 */
export async function baselineResults(
  name: string,
  base = tmpdir(),
  incidents: readonly string[] = ["zklite-142"],
): Promise<BaselineResults> {
  const root = await mkdtemp(join(base, `distdebug-${name}-`));
  const datasetDir = join(root, "dataset");
  for (const id of incidents)
    await cp(join(exampleDir, id), join(datasetDir, id), { recursive: true });
  await writeFile(
    join(datasetDir, "dataset.json"),
    serialize({
      format: "distdebug.dataset/1",
      name,
      version: "1.0.0",
      incidents: [...incidents],
    }),
  );
  const dataset = await loadDataset(datasetDir);
  const cacheDir = join(root, "cache");
  const resultsDir = join(root, "baseline");
  const config = parseRunConfig({
    name: "baseline",
    agent: { type: "baseline", wallTimeLimitSec: 60 },
    run: { attempts: 2 },
  });
  await runBenchmark({ config, dataset, outDir: resultsDir, cacheDir });
  await scoreResults({ outDir: resultsDir, dataset, cacheDir, resamples: 500 });
  return { datasetDir, dataset, cacheDir, resultsDir };
}
