import { quantileR7 } from "@distdebug/stats";
import type { LoadedAttempt, LoadedResults } from "../load-results.js";
import type { ReportIncident } from "../report-incident.js";
import { slug } from "./html.js";

/** What the per-incident table shows of an incident's description. */
export type IncidentFacts = Pick<ReportIncident, "title" | "system" | "languages">;

/** How an incident's attempts ended, in one configuration. */
export interface IncidentStatus {
  succeeded: number;
  /** Attempts expected (the run's attempts per incident, or more if more were found). */
  expected: number;
  /** For example `2/3 succeeded; attempt 2 agent-error (AGENT_EXIT), attempt 3 missing`. */
  text: string;
}

/** One row of the per-incident table: one incident in one configuration. */
export interface IncidentRow {
  configName: string;
  incidentId: string;
  /** Undefined when the sources do not know the incident. */
  facts: IncidentFacts | undefined;
  /** The incident's mean over its counted attempts, as the leaderboard counts them. */
  blockCoverage: number | undefined;
  blockPrecision: number | undefined;
  fileCoverage: number | undefined;
  status: IncidentStatus;
  /** Median of the attempts' durations (attempt.json `durationMs`), every status counted. */
  medianDurationMs: number | undefined;
  /** Link to the incident's row in the configuration's attempts table. */
  attemptsHref: string;
}

/** The id of an incident's row in a configuration's attempts table. */
export function attemptsRowId(configSlug: string, incidentId: string): string {
  return `attempts/${configSlug}/${slug(incidentId)}`;
}

/** Attempts grouped by incident, in the order they were read. */
export function attemptsByIncident(results: LoadedResults): Map<string, LoadedAttempt[]> {
  const byIncident = new Map<string, LoadedAttempt[]>();
  for (const attempt of results.attempts) {
    const list = byIncident.get(attempt.incidentId) ?? [];
    list.push(attempt);
    byIncident.set(attempt.incidentId, list);
  }
  return byIncident;
}

function attemptProblem(attempt: LoadedAttempt): string | undefined {
  const record = attempt.record;
  if (!record) return `attempt ${attempt.attempt} unknown (no valid attempt.json)`;
  if (record.status === "succeeded") return undefined;
  return `attempt ${attempt.attempt} ${record.status}${record.error ? ` (${record.error.code})` : ""}`;
}

function incidentStatus(
  results: LoadedResults,
  incidentId: string,
  attempts: readonly LoadedAttempt[],
): IncidentStatus {
  const missing = results.summary.missing
    .filter((entry) => entry.incidentId === incidentId)
    .map((entry) => entry.attempt);
  const numbers = new Set([...attempts.map((attempt) => attempt.attempt), ...missing]);
  const expected = Math.max(results.summary.counts.attemptsPerIncident, numbers.size);
  const succeeded = attempts.filter((attempt) => attempt.record?.status === "succeeded").length;
  const problems = [
    ...attempts.flatMap((attempt) => attemptProblem(attempt) ?? []),
    ...missing
      .filter((number) => !attempts.some((a) => a.attempt === number))
      .map((number) => `attempt ${number} missing`),
  ];
  const text =
    expected === 0
      ? "no attempts"
      : `${succeeded}/${expected} succeeded${problems.length > 0 ? `; ${problems.join(", ")}` : ""}`;
  return { succeeded, expected, text };
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  return quantileR7(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/**
 * The rows of one configuration: every incident of its summary or its attempt folders, in id
 * order, with the incident means of summary.json (failed attempts count 0, as on the
 * leaderboard).
 */
export function incidentRows(options: {
  results: LoadedResults;
  configSlug: string;
  facts: ReadonlyMap<string, IncidentFacts | undefined>;
}): IncidentRow[] {
  const { results } = options;
  const byIncident = attemptsByIncident(results);
  const means = new Map(results.summary.incidents.map((incident) => [incident.id, incident]));
  const ids = [...new Set([...means.keys(), ...byIncident.keys()])];
  return ids.map((incidentId) => {
    const attempts = byIncident.get(incidentId) ?? [];
    const metrics = means.get(incidentId)?.metrics;
    return {
      configName: results.name,
      incidentId,
      facts: options.facts.get(incidentId),
      blockCoverage: metrics?.blockCoverage,
      blockPrecision: metrics?.blockPrecision,
      fileCoverage: metrics?.fileCoverage,
      status: incidentStatus(results, incidentId, attempts),
      medianDurationMs: median(attempts.flatMap((attempt) => attempt.record?.durationMs ?? [])),
      attemptsHref: `#${attemptsRowId(options.configSlug, incidentId)}`,
    };
  });
}
