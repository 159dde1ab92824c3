import { mkdtemp, readFile, realpath, rm, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { type DatasetIncident, loadDataset, loadGold } from "@distdebug/dataset";
import {
  formatLeaderboard,
  type LoadedResults,
  loadResults,
  type ReportSources,
  writeReport,
} from "@distdebug/report";
import { type PreparedIncident, prepareIncident } from "@distdebug/runner";
import { serialize } from "@distdebug/schema";
import { defineCommand, optionalString, usageError } from "../command.js";
import { errorMessage } from "../error-text.js";
import { CACHE_DIR_OPTION, cacheDirOf } from "../render/cache-dir.js";

/** Source files larger than this are not shown in the report. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/**
 * Report sources from the dataset: gold from each incident's gold.json and source text from
 * the anonymized workspace at the buggy revision, materialized once per incident into
 * `scratch`. Paths are resolved inside the workspace only.
 */
function datasetSources(options: {
  incidents: ReadonlyMap<string, DatasetIncident>;
  cacheDir: string;
  scratch: string;
  warn: (message: string) => void;
}): ReportSources {
  const workspaces = new Map<string, Promise<string | undefined>>();
  const workspaceOf = (incidentId: string) => {
    let pending = workspaces.get(incidentId);
    if (!pending) {
      const incident = options.incidents.get(incidentId);
      pending = incident
        ? (async () => {
            try {
              const prepared: PreparedIncident = await prepareIncident({
                incident,
                cacheDir: options.cacheDir,
              });
              const dir = join(options.scratch, incidentId);
              await prepared.materialize(dir);
              return await realpath(dir);
            } catch (error) {
              options.warn(`${incidentId}: source code not shown: ${errorMessage(error)}`);
              return undefined;
            }
          })()
        : Promise.resolve(undefined);
      workspaces.set(incidentId, pending);
    }
    return pending;
  };
  return {
    async readSource(incidentId, path) {
      const root = await workspaceOf(incidentId);
      if (!root) return undefined;
      try {
        const file = await realpath(resolve(root, path));
        if (!file.startsWith(root + sep)) return undefined;
        const info = await stat(file);
        if (!info.isFile() || info.size > MAX_SOURCE_BYTES) return undefined;
        return await readFile(file, "utf8");
      } catch {
        return undefined;
      }
    },
    async gold(incidentId) {
      const incident = options.incidents.get(incidentId);
      if (!incident) return undefined;
      try {
        return (await loadGold(incident))?.blocks;
      } catch {
        return undefined;
      }
    },
  };
}

async function loadIncidents(
  results: readonly LoadedResults[],
  datasetOption: string | undefined,
  warn: (message: string) => void,
): Promise<Map<string, DatasetIncident>> {
  const incidents = new Map<string, DatasetIncident>();
  const dirs = datasetOption
    ? [datasetOption]
    : [
        ...new Set(
          results.flatMap((result) => (result.run?.dataset.path ? [result.run.dataset.path] : [])),
        ),
      ];
  for (const dir of dirs) {
    try {
      const dataset = await loadDataset(dir);
      for (const incident of dataset.incidents)
        if (!incidents.has(incident.id)) incidents.set(incident.id, incident);
      for (const result of results) {
        if (
          result.run &&
          result.run.dataset.path === dir &&
          result.run.dataset.digest !== dataset.digest
        )
          warn(
            `${result.name}: the dataset at ${dir} changed since the run; the code shown may differ from what was scored`,
          );
      }
    } catch (error) {
      warn(`dataset ${dir}: source code not shown: ${errorMessage(error)}`);
    }
  }
  return incidents;
}

export default defineCommand({
  usage: "report <results dir>... [--out report/]",
  description:
    "Prints the leaderboard of one or more scored results folders (block coverage, block precision and file coverage with 95% CI, localization gap, tokens and cost per run, failed attempts) and writes a static HTML report folder that opens from file:// with no network: forest plot, subgroup panels, run-to-run variation, and a page per attempt with the trajectory and the diagnosis beside the gold blocks on the source code. Each folder needs summary.json (distdebug score writes it).",
  options: {
    out: { type: "string", description: "report folder to write (default: report)" },
    format: {
      type: "string",
      description: "leaderboard printed on stdout: text (default), markdown or none",
    },
    dataset: {
      type: "string",
      description:
        "dataset folder for gold notes and source code (default: the one run.json names)",
    },
    ...CACHE_DIR_OPTION,
  },
  async run(args, io) {
    if (args.positionals.length === 0) throw usageError("name at least one results folder");
    const format = optionalString(args, "format") ?? "text";
    if (!["text", "markdown", "none"].includes(format))
      throw usageError(
        `--format: expected text, markdown or none, found ${JSON.stringify(format)}`,
      );
    const outDir = resolve(io.cwd, optionalString(args, "out") ?? "report");
    const results: LoadedResults[] = [];
    for (const dir of args.positionals) results.push(await loadResults(resolve(io.cwd, dir)));
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    const datasetOption = optionalString(args, "dataset");
    const incidents = await loadIncidents(
      results,
      datasetOption === undefined ? undefined : resolve(io.cwd, datasetOption),
      warn,
    );
    const cacheDir = cacheDirOf(optionalString(args, "cache-dir"), io);
    const scratch = await mkdtemp(join(io.env.TMPDIR ?? "/tmp", "distdebug-report-"));
    let written: Awaited<ReturnType<typeof writeReport>>;
    try {
      written = await writeReport({
        results,
        outDir,
        ...(incidents.size > 0
          ? { sources: datasetSources({ incidents, cacheDir, scratch, warn }) }
          : {}),
        ...(io.signal ? { signal: io.signal } : {}),
      });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    const summaries = results.map((result) => result.summary);
    if (args.values.json) {
      io.stdout(
        serialize({ index: written.index, files: written.files.length, summaries, warnings }),
      );
      return 0;
    }
    if (format !== "none")
      io.stdout(formatLeaderboard(summaries, { format: format as "text" | "markdown" }));
    for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
    io.stderr(`report: ${written.index} (${written.files.length} pages)\n`);
    return 0;
  },
});
