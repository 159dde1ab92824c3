/**
 * The example dataset's incidents as the evaluator sees them: each repository built at its
 * buggy revision into a folder, with its gold labels. Shared by the evaluator's benches.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { listDirectoryFiles } from "@distdebug/evaluator";
import { buildIncidentRepository, loadDataset, loadGold } from "@distdebug/runner";
import type { Gold } from "@distdebug/schema";
import { prepareWorkspace } from "@distdebug/workspace";

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
}

/**
 * Builds every scorable incident of a dataset folder (default: the examples) in a new temporary
 * folder `root` (the caller removes it).
 */
export async function exampleIncidents(
  datasetDir = EXAMPLES_DIR,
): Promise<{ root: string; incidents: ExampleIncident[] }> {
  const root = await mkdtemp(join(tmpdir(), "distdebug-examples-"));
  const cacheDir = join(root, "cache");
  const dataset = await loadDataset(datasetDir);
  const incidents: ExampleIncident[] = [];
  for (const entry of dataset.incidents) {
    const gold = await loadGold(entry);
    if (!gold) continue;
    const built = await buildIncidentRepository(entry, { cacheDir });
    const dir = join(root, entry.id);
    await prepareWorkspace({ source: built.gitdir, commit: built.buggyCommit, dir, cacheDir });
    incidents.push({ id: entry.id, dir, files: await listDirectoryFiles(dir), gold });
  }
  return { root, incidents };
}
