import { realpath } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { type GoldBlock, readFileChecked } from "@distdebug/schema";
import type { ReportIncident } from "./report-incident.js";

/**
 * Where a report gets what results folders do not hold: the source text of the buggy
 * revision and the gold labels with their notes. The CLI supplies them from the dataset and
 * the prepared workspace ({@link folderSources} over `datasetSources` of `@distdebug/dataset`); a report without sources still shows the gold blocks recorded in
 * `diagnosis_scores.json`, without code.
 */
export interface ReportSources {
  /** The text of a repository file at the incident's buggy revision; undefined when unknown. */
  readSource(incidentId: string, path: string): Promise<string | undefined>;
  /** The gold blocks of an incident (with notes). Default: those of `diagnosis_scores.json`. */
  gold?(incidentId: string): Promise<readonly GoldBlock[] | undefined>;
  /**
   * The incident's title, system, languages, report and artifacts; undefined when unknown
   * (the report then says "unknown"). A provider that throws is treated as unknown too.
   */
  incident?(incidentId: string): Promise<ReportIncident | undefined>;
}

/**
 * Sources from memory: file texts, gold blocks and incident descriptions by incident id. For
 * tests, examples and harnesses that already hold the files.
 *
 * @example
 * ```ts
 * const sources = inMemorySources({
 *   files: { "zklite-142": { "src/Server.java": "class Server {}\n" } },
 *   incidents: {
 *     "zklite-142": { title: "Session lost", system: "zklite", languages: ["java"], report: "..." },
 *   },
 * });
 * ```
 */
export function inMemorySources(options: {
  files: Record<string, Record<string, string>>;
  gold?: Record<string, readonly GoldBlock[]>;
  incidents?: Record<string, ReportIncident>;
}): ReportSources {
  return {
    async readSource(incidentId, path) {
      return options.files[incidentId]?.[path];
    },
    async gold(incidentId) {
      return options.gold?.[incidentId];
    },
    async incident(incidentId) {
      return options.incidents?.[incidentId];
    },
  };
}

/** Options of {@link folderSources}. */
export interface FolderSourcesOptions {
  /**
   * The folder holding an incident's repository files at its buggy revision (for example its
   * anonymized workspace, as `datasetSources` of `@distdebug/dataset` gives it); undefined
   * when there is none.
   */
  workspaceDir(incidentId: string): Promise<string | undefined>;
  /** The gold blocks of an incident (with notes). Default: those of `diagnosis_scores.json`. */
  gold?(incidentId: string): Promise<readonly GoldBlock[] | undefined>;
  /** Files larger than this are not shown. Default 2 MiB. */
  maxSourceBytes?: number;
}

/** Default of {@link FolderSourcesOptions.maxSourceBytes}: 2 MiB. */
const DEFAULT_MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/**
 * The text of `path` inside `root`, or undefined when it leads outside `root` (also through a
 * symbolic link), is not a regular file, is larger than `maxBytes` or cannot be read. The
 * paths come from diagnoses an agent wrote, so nothing outside the folder is ever read.
 */
async function readContainedFile(
  root: string,
  path: string,
  maxBytes: number,
): Promise<string | undefined> {
  try {
    const realRoot = await realpath(root);
    const file = await realpath(resolve(realRoot, path));
    if (!file.startsWith(realRoot + sep)) return undefined;
    return (await readFileChecked(file, { maxBytes })).toString("utf8");
  } catch {
    return undefined;
  }
}

/**
 * Sources read from a folder per incident: each path a diagnosis or gold block names is
 * resolved inside the incident's folder only (a path or link that leads outside it shows no
 * code), and files over `maxSourceBytes` are not shown.
 *
 * @example
 * ```ts
 * const sources = folderSources({
 *   workspaceDir: async (incidentId) => `/work/checkouts/${incidentId}`,
 * });
 * await writeReport({ results, outDir: "report", sources });
 * ```
 */
export function folderSources(options: FolderSourcesOptions): ReportSources {
  const maxBytes = options.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  const sources: ReportSources = {
    async readSource(incidentId, path) {
      const root = await options.workspaceDir(incidentId);
      return root === undefined ? undefined : readContainedFile(root, path, maxBytes);
    },
  };
  const gold = options.gold?.bind(options);
  return gold ? { ...sources, gold } : sources;
}
