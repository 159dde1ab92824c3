import { mkdtemp, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type DatasetIncident,
  datasetSources,
  incidentTask,
  loadDataset,
} from "@distdebug/dataset";
import {
  folderSources,
  formatLeaderboard,
  type LoadedResults,
  loadResults,
  type ReportSources,
  writeReport,
} from "@distdebug/report";
import { mirrorOf } from "@distdebug/runner";
import { serialize } from "@distdebug/schema";
import { defineCommand, optionalString, usageError } from "../command.js";
import { MIRROR_OPTION, mirrorsFromArgs } from "../dataset-arg.js";
import { errorMessage } from "../error-text.js";
import { CACHE_DIR_OPTION, cacheDirOf } from "../render/cache-dir.js";

/**
 * The incidents' titles, systems and languages from incident.json, and the report and
 * artifacts their agents read (the task view, built only from regular files of the incident
 * folder; when it cannot be built, a warning and no files).
 */
function datasetIncidents(
  incidents: ReadonlyMap<string, DatasetIncident>,
  warn: (message: string) => void,
): Required<Pick<ReportSources, "incident">> {
  const warned = new Set<string>();
  return {
    async incident(incidentId) {
      const entry = incidents.get(incidentId);
      if (!entry) return undefined;
      const { title, system, languages } = entry.incident;
      try {
        const task = await incidentTask(entry);
        return { title, system, languages, report: task.report, artifacts: task.artifacts };
      } catch (error) {
        if (!warned.has(incidentId))
          warn(`${incidentId}: report and artifacts not shown: ${errorMessage(error)}`);
        warned.add(incidentId);
        return { title, system, languages };
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
  usage: "report <results dir>... [--out report/] [--mirror <folder | owner/name=<gitdir>>]...",
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
    ...MIRROR_OPTION,
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
    const mirrors = mirrorsFromArgs(args, io.cwd);
    const scratch = await mkdtemp(join(io.env.TMPDIR ?? "/tmp", "distdebug-report-"));
    let written: Awaited<ReturnType<typeof writeReport>>;
    try {
      written = await writeReport({
        results,
        outDir,
        ...(incidents.size > 0
          ? {
              sources: {
                ...folderSources(
                  datasetSources({
                    incidents,
                    cacheDir,
                    scratch,
                    onWarning: warn,
                    mirror: (incident) => mirrorOf(incident, mirrors),
                  }),
                ),
                ...datasetIncidents(incidents, warn),
              },
            }
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
