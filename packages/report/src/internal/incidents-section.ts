import type { LoadedResults } from "../load-results.js";
import type { ReportIncident } from "../report-incident.js";
import type { ReportSources } from "../sources.js";
import { slug } from "./html.js";
import { type IncidentFacts, incidentRows } from "./incident-rows.js";
import { incidentTableHtml } from "./incident-table.js";

/** The sources' description of an incident; undefined when unknown or when the provider fails. */
export async function describeIncident(
  sources: ReportSources | undefined,
  incidentId: string,
): Promise<ReportIncident | undefined> {
  try {
    return (await sources?.incident?.(incidentId)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Title, system and languages of every incident of the results (not the report and artifacts). */
async function incidentFacts(
  results: readonly LoadedResults[],
  sources: ReportSources | undefined,
): Promise<Map<string, IncidentFacts | undefined>> {
  const ids = new Set(
    results.flatMap((result) => [
      ...result.summary.incidents.map((incident) => incident.id),
      ...result.attempts.map((attempt) => attempt.incidentId),
    ]),
  );
  const facts = new Map<string, IncidentFacts | undefined>();
  for (const id of ids) {
    const incident = await describeIncident(sources, id);
    facts.set(
      id,
      incident && {
        title: incident.title,
        system: incident.system,
        languages: incident.languages,
      },
    );
  }
  return facts;
}

/** The per-incident table of every configuration, sortable by each column. */
export async function incidentsSectionHtml(
  results: readonly LoadedResults[],
  slugs: ReadonlyMap<LoadedResults, string>,
  sources: ReportSources | undefined,
): Promise<string> {
  const facts = await incidentFacts(results, sources);
  const rows = results.flatMap((result) =>
    incidentRows({ results: result, configSlug: slugs.get(result) ?? slug(result.name), facts }),
  );
  const several = results.length > 1;
  return [
    '<h2 id="incidents">Incidents</h2>',
    `<p class="muted">One row per incident${several ? " and configuration" : ""}. Block coverage, block precision and file coverage are the incident's mean over its attempts (a failed attempt counts 0, as on the leaderboard); duration is the median of its attempts. Select a column heading to sort by it; the incident links to its attempts.</p>`,
    incidentTableHtml(rows, { severalConfigurations: several }),
  ].join("\n");
}
