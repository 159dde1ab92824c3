import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type DatasetIndex,
  IncidentCategory,
  Language,
  parseDatasetIndex,
  readFileChecked,
} from "@distdebug/schema";
import { datasetDigest, incidentDigests } from "./digest.js";
import { checkIncident } from "./internal/check-incident.js";
import { problemsOf } from "./internal/files.js";
import { type DatasetProblem, invalidDataset } from "./problems.js";
import type { Dataset, DatasetCheck, DatasetCounts, DatasetIncident } from "./types.js";

function emptyCounts(): DatasetCounts {
  return {
    incidents: 0,
    scorable: 0,
    remote: 0,
    languages: Object.fromEntries(
      Language.options.map((name) => [name, 0]),
    ) as DatasetCounts["languages"],
    categories: Object.fromEntries(
      IncidentCategory.options.map((name) => [name, 0]),
    ) as DatasetCounts["categories"],
    multiBlock: 0,
    reportWithoutCausalMethod: 0,
    withoutUsableStackTrace: 0,
  };
}

/**
 * Checks a dataset folder completely and returns every problem at once (missing files, bad
 * JSON, schema errors with JSON paths, duplicate ids, gold lines outside the buggy file,
 * commit ids that do not match the repository data), the counts, and the loaded dataset
 * when there is no problem. Never throws for a bad dataset.
 *
 * @example
 * ```ts
 * const check = await checkDataset("examples/dataset");
 * if (!check.ok) for (const problem of check.problems) console.error(formatProblem(problem));
 * ```
 */
export async function checkDataset(dir: string): Promise<DatasetCheck> {
  const root = resolve(dir);
  const problems: DatasetProblem[] = [];
  const notes: string[] = [];
  const counts = emptyCounts();
  let index: DatasetIndex | undefined;
  try {
    index = parseDatasetIndex(await readFileChecked(resolve(root, "dataset.json")), {
      source: "dataset.json",
    });
  } catch (error) {
    problems.push(...problemsOf(error, "dataset.json"));
  }
  if (!index) return { dir: root, ok: false, problems, notes, counts };

  const seen = new Map<string, number>();
  index.incidents.forEach((id, position) => {
    const first = seen.get(id);
    if (first !== undefined)
      problems.push({
        file: "dataset.json",
        path: `$.incidents[${position}]`,
        message: `duplicate incident id ${JSON.stringify(id)} (also at $.incidents[${first}])`,
      });
    else seen.set(id, position);
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(id))
      problems.push({
        file: "dataset.json",
        path: `$.incidents[${position}]`,
        message: `expected a lowercase incident id such as zookeeper-2845, found ${JSON.stringify(id)}`,
      });
  });
  const listed = new Set(index.incidents);
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith(".") && !listed.has(entry.name))
      problems.push({
        file: entry.name,
        message: "a folder that dataset.json $.incidents does not list",
      });
  }

  const incidents: DatasetIncident[] = [];
  const ids = new Map<string, string>();
  for (const id of seen.keys()) {
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(id)) continue;
    const check = await checkIncident(root, id);
    problems.push(...check.problems);
    const { incident, gold, repository } = check;
    if (!incident) continue;
    const other = ids.get(incident.id);
    if (other !== undefined && other !== id)
      problems.push({
        file: `${id}/incident.json`,
        path: "$.id",
        message: `duplicate incident id ${JSON.stringify(incident.id)} (also in ${other}/incident.json)`,
      });
    ids.set(incident.id, id);
    counts.incidents += 1;
    for (const language of new Set(incident.languages)) counts.languages[language] += 1;
    counts.categories[incident.category] += 1;
    if (!incident.clues.reportNamesCausalMethod) counts.reportWithoutCausalMethod += 1;
    if (!incident.clues.usableStackTrace) counts.withoutUsableStackTrace += 1;
    if (gold) {
      counts.scorable += 1;
      if (gold.blocks.length >= 2) counts.multiBlock += 1;
    } else if (check.goldPresent) {
      // invalid gold.json: its problems are already listed
    } else if (index.requireGold)
      problems.push({
        file: `${id}/gold.json`,
        message: "the gold labels are missing (dataset.json requires gold for every incident)",
      });
    else notes.push(`${id}: no gold.json; runs record the diagnosis but cannot score it`);
    if (repository?.kind === "remote") {
      counts.remote += 1;
      notes.push(`${id}: repository ${repository.url} is remote; running it needs network`);
    }
    if (repository) {
      const { digest, earlier } = await incidentDigests(resolve(root, id));
      incidents.push({
        id,
        dir: resolve(root, id),
        incident,
        scorable: gold !== undefined,
        repository,
        digest,
        earlierDigests: earlier,
      });
    }
  }
  if (problems.length > 0) return { dir: root, ok: false, problems, notes, counts };
  const dataset = { dir: root, index, incidents, digest: await datasetDigest(root) };
  return { dir: root, ok: true, problems, notes, counts, dataset };
}

/**
 * Loads and validates a dataset folder (`dataset.json` and one folder per incident).
 * Throws one `DistDebugError` with code `INVALID_DATASET` listing every problem, each naming
 * its file and JSON path (`data.problems`). Gold labels are checked but not kept: read them
 * with `loadGold`.
 *
 * @example
 * ```ts
 * const dataset = await loadDataset("examples/dataset");
 * console.log(dataset.incidents.map((entry) => entry.id), dataset.digest);
 * ```
 */
export async function loadDataset(dir: string): Promise<Dataset> {
  const check = await checkDataset(dir);
  if (!check.dataset) throw invalidDataset(check.dir, check.problems);
  return check.dataset;
}
