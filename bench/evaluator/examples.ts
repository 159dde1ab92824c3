/**
 * The example dataset's incidents as the evaluator's benches see them: each checked out at its
 * buggy revision (as an agent's workspace is) with its gold labels and task.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type IncidentTask, loadDataset } from "@distdebug/dataset";
import { listDirectoryFiles } from "@distdebug/evaluator";
import { prepareIncident } from "@distdebug/runner";
import type { Gold } from "@distdebug/schema";

/** The bundled example dataset folder. */
export const EXAMPLES_DIR = fileURLToPath(new URL("../../examples/dataset", import.meta.url));

/** One example incident checked out at its buggy revision. */
export interface ExampleIncident {
  id: string;
  /** The source tree at the buggy revision. */
  dir: string;
  /** Its files, sorted repository paths. */
  files: string[];
  gold: Gold;
  task: IncidentTask;
}

/**
 * Checks out every scorable incident of a dataset folder (default: the examples) in a new
 * temporary folder `root`, which the caller removes.
 */
export async function exampleIncidents(
  datasetDir = EXAMPLES_DIR,
): Promise<{ root: string; incidents: ExampleIncident[] }> {
  const root = await mkdtemp(join(tmpdir(), "distdebug-examples-"));
  const cacheDir = join(root, "cache");
  const dataset = await loadDataset(datasetDir);
  const incidents: ExampleIncident[] = [];
  for (const incident of dataset.incidents) {
    const prepared = await prepareIncident({ incident, cacheDir });
    if (!prepared.gold) continue;
    const dir = join(root, incident.id);
    await prepared.materialize(dir);
    const files = await listDirectoryFiles(dir);
    incidents.push({ id: incident.id, dir, files, gold: prepared.gold, task: prepared.task });
  }
  return { root, incidents };
}
