import type { GoldBlock } from "@distdebug/schema";
import type { ReportIncident } from "./report-incident.js";

/**
 * Where a report gets what results folders do not hold: the source text of the buggy
 * revision and the gold labels with their notes. The CLI supplies them from the dataset and
 * the prepared workspace; a report without sources still shows the gold blocks recorded in
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
