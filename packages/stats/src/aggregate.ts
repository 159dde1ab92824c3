import {
  type Attempt,
  DistDebugError,
  type Incident,
  type ScoreMetrics,
  type SearchPath,
  Summary,
  spentUsd,
} from "@distdebug/schema";
import { exactMean, exactSum } from "./internal/exact-sum.js";

/** One of the four aggregated metrics (`blockCoverage`, `blockPrecision`, `fileCoverage`, `linePrecision`). */
export type MetricName = keyof Summary["metrics"];

/** The aggregated metrics in their fixed order. */
export const METRIC_NAMES: readonly MetricName[] = Summary.shape.metrics.keyType.options;

/** One attempt as the stats package reads it (fields of `attempt.json`). */
export type AttemptRecord = Pick<Attempt, "incidentId" | "attempt" | "status" | "usage"> & {
  /** The attempt's scores; absent when there was no diagnosis. */
  metrics?: Pick<ScoreMetrics, MetricName> | undefined;
  /** The attempt's search path (`search` of its diagnosis_scores.json), when scored with one. */
  search?: SearchPath | undefined;
};

/** One incident as the stats package reads it (fields of `incident.json` and the gold block count). */
export type IncidentRecord = Pick<
  Incident,
  "id" | "system" | "languages" | "category" | "clues"
> & {
  /** Number of gold blocks; more than one puts the incident in `multipleBlocks: true`. */
  goldBlocks: number;
};

/** One incident after aggregation. */
export interface IncidentRow {
  incident: IncidentRecord;
  /** Counted attempts (succeeded or failed), by attempt number, with their scores (0 when failed). */
  scores: Map<number, Record<MetricName, number>>;
  failed: number;
  infraErrors: number;
  interrupted: number;
  /** Incident means; undefined without counted attempts. */
  means: Record<MetricName, number> | undefined;
  /** Mean use per counted attempt. */
  usage:
    | {
        inputTokens: number;
        outputTokens: number;
        cachedTokens: number;
        calls: number;
        costUsd: number | null;
      }
    | undefined;
}

/** The attempt set of one configuration after aggregation. */
export interface Aggregation {
  attemptsPerIncident: number;
  /** All incidents sorted by id. */
  rows: IncidentRow[];
  /** Incidents with at least one counted attempt, sorted by id. */
  scored: IncidentRow[];
  missing: { incidentId: string; attempt: number }[];
  rerun: { incidentId: string; attempt: number; status: "infra-error" | "interrupted" }[];
  attemptRecords: number;
  totalTokens: number;
  totalCostUsd: number | null;
}

const FAILED = new Set(["agent-error", "limit-exceeded"]);

function invalid(path: string, message: string, found?: unknown): never {
  throw new DistDebugError({
    code: "INVALID_ARGUMENT",
    message: `${path}: ${message}`,
    data: { path, found },
  });
}

function byId(a: { incident: IncidentRecord }, b: { incident: IncidentRecord }): number {
  return a.incident.id < b.incident.id ? -1 : a.incident.id > b.incident.id ? 1 : 0;
}

function zeroScores(): Record<MetricName, number> {
  return { blockCoverage: 0, blockPrecision: 0, fileCoverage: 0, linePrecision: 0 };
}

/**
 * Groups attempts by incident and applies the counting rules: agent failures (agent-error,
 * limit-exceeded, or succeeded without metrics) score 0 on every metric and are counted;
 * infra errors and interrupted attempts are not counted and are listed for rerun; expected
 * attempts without a record are listed as missing, never imputed. Attempts numbered above
 * `attemptsPerIncident` are ignored. The incident mean is the correctly rounded mean of its
 * counted attempts, so it does not depend on their order.
 *
 * @param attemptsPerIncident - attempts expected per incident; default: the highest attempt number seen (at least 1).
 * @example
 * ```ts
 * const { scored } = aggregateAttempts(attempts, incidents);
 * scored[0]?.means?.blockCoverage;
 * ```
 */
export function aggregateAttempts(
  attempts: readonly AttemptRecord[],
  incidents: readonly IncidentRecord[],
  attemptsPerIncident?: number,
): Aggregation {
  const rowsById = emptyRows(incidents);
  const expected = expectedAttempts(attempts, attemptsPerIncident);
  const tally = countAttempts(attempts, rowsById, expected);
  const rows = [...rowsById.values()].sort(byId);
  for (const row of rows) summarizeRow(row, tally.usageByIncident.get(row.incident.id) ?? []);
  return {
    attemptsPerIncident: expected,
    rows,
    scored: rows.filter((row) => row.means !== undefined),
    missing: missingAttempts(rows, tally.rerun, expected),
    rerun: tally.rerun.sort(byIncidentAndAttempt),
    attemptRecords: tally.attemptRecords,
    totalTokens: exactSum(tally.tokens),
    totalCostUsd: tally.costKnown ? exactSum(tally.costs) : null,
  };
}

/** One empty row per incident, keyed by id; refuses a bad or duplicate id or gold count. */
function emptyRows(incidents: readonly IncidentRecord[]): Map<string, IncidentRow> {
  const rowsById = new Map<string, IncidentRow>();
  incidents.forEach((incident, index) => {
    if (typeof incident?.id !== "string" || incident.id === "")
      invalid(`incidents[${index}].id`, "expected a non-empty string", incident?.id);
    if (rowsById.has(incident.id))
      invalid(`incidents[${index}].id`, `duplicate incident "${incident.id}"`);
    if (!Number.isInteger(incident.goldBlocks) || incident.goldBlocks < 0)
      invalid(
        `incidents[${index}].goldBlocks`,
        "expected a non-negative integer",
        incident.goldBlocks,
      );
    rowsById.set(incident.id, {
      incident,
      scores: new Map(),
      failed: 0,
      infraErrors: 0,
      interrupted: 0,
      means: undefined,
      usage: undefined,
    });
  });
  return rowsById;
}

/** Attempts expected per incident: the given number, else the highest seen (at least 1). */
function expectedAttempts(
  attempts: readonly AttemptRecord[],
  attemptsPerIncident: number | undefined,
): number {
  let expected = attemptsPerIncident ?? 0;
  if (
    attemptsPerIncident !== undefined &&
    (!Number.isInteger(attemptsPerIncident) || attemptsPerIncident < 1)
  )
    invalid("attemptsPerIncident", "expected a positive integer", attemptsPerIncident);
  attempts.forEach((attempt, index) => {
    if (!Number.isInteger(attempt?.attempt) || attempt.attempt < 1)
      invalid(`attempts[${index}].attempt`, "expected a positive integer", attempt?.attempt);
    if (attemptsPerIncident === undefined) expected = Math.max(expected, attempt.attempt);
  });
  return Math.max(expected, 1);
}

/** What {@link countAttempts} gathers besides the rows it fills. */
interface Tally {
  usageByIncident: Map<string, AttemptRecord["usage"][]>;
  rerun: Aggregation["rerun"];
  attemptRecords: number;
  tokens: number[];
  costs: number[];
  costKnown: boolean;
}

/** Puts each attempt numbered up to `expected` into its incident's row (scores or rerun list). */
function countAttempts(
  attempts: readonly AttemptRecord[],
  rowsById: Map<string, IncidentRow>,
  expected: number,
): Tally {
  const seen = new Set<string>();
  const tally: Tally = {
    usageByIncident: new Map(),
    rerun: [],
    attemptRecords: 0,
    tokens: [],
    costs: [],
    costKnown: true,
  };
  attempts.forEach((attempt, index) => {
    const path = `attempts[${index}]`;
    const row = rowsById.get(attempt.incidentId);
    if (!row)
      invalid(
        `${path}.incidentId`,
        `incident "${attempt.incidentId}" is not in the incidents list`,
      );
    if (attempt.attempt > expected) return;
    const key = `${attempt.incidentId}\u0000${attempt.attempt}`;
    if (seen.has(key))
      invalid(path, `duplicate attempt ${attempt.attempt} of incident "${attempt.incidentId}"`);
    seen.add(key);
    tally.attemptRecords++;
    const usage = checkedUsage(path, attempt.usage);
    tally.tokens.push(usage.inputTokens + usage.outputTokens);
    if (usage.costUsd === null) tally.costKnown = false;
    else tally.costs.push(usage.costUsd);
    if (attempt.status === "infra-error" || attempt.status === "interrupted") {
      if (attempt.status === "infra-error") row.infraErrors++;
      else row.interrupted++;
      tally.rerun.push({
        incidentId: attempt.incidentId,
        attempt: attempt.attempt,
        status: attempt.status,
      });
      return;
    }
    row.scores.set(attempt.attempt, countedScores(path, attempt, row));
    const list = tally.usageByIncident.get(attempt.incidentId) ?? [];
    list.push(usage);
    tally.usageByIncident.set(attempt.incidentId, list);
  });
  return tally;
}

/**
 * The attempt's usage with its cost as reports show it ({@link spentUsd}: no calls, $0), or
 * throws naming the first field that is not a non-negative number.
 */
function checkedUsage(path: string, usage: AttemptRecord["usage"]): AttemptRecord["usage"] {
  for (const field of ["inputTokens", "outputTokens", "cachedTokens", "calls"] as const)
    if (!Number.isFinite(usage?.[field]) || usage[field] < 0)
      invalid(`${path}.usage.${field}`, "expected a non-negative number", usage?.[field]);
  if (usage.costUsd !== null && (!Number.isFinite(usage.costUsd) || usage.costUsd < 0))
    invalid(`${path}.usage.costUsd`, "expected a non-negative number or null", usage.costUsd);
  return { ...usage, costUsd: spentUsd(usage) };
}

/** The scores a counted attempt adds: its metrics, or 0 on every metric for an agent failure. */
function countedScores(
  path: string,
  attempt: AttemptRecord,
  row: IncidentRow,
): Record<MetricName, number> {
  const failed = FAILED.has(attempt.status) || attempt.metrics === undefined;
  if (attempt.status !== "succeeded" && !FAILED.has(attempt.status))
    invalid(
      `${path}.status`,
      "expected succeeded, agent-error, limit-exceeded, infra-error or interrupted",
      attempt.status,
    );
  const scores = zeroScores();
  if (failed || attempt.metrics === undefined) {
    row.failed++;
    return scores;
  }
  for (const metric of METRIC_NAMES) {
    const value = attempt.metrics[metric];
    if (typeof value !== "number" || !(value >= 0 && value <= 1))
      invalid(`${path}.metrics.${metric}`, "expected a share from 0 to 1", value);
    scores[metric] = value;
  }
  return scores;
}

/** Expected attempts of each row with neither a counted record nor a rerun entry. */
function missingAttempts(
  rows: readonly IncidentRow[],
  rerun: Aggregation["rerun"],
  expected: number,
): Aggregation["missing"] {
  const missing: Aggregation["missing"] = [];
  for (const row of rows) {
    const id = row.incident.id;
    const done = new Set(row.scores.keys());
    for (const entry of rerun) if (entry.incidentId === id) done.add(entry.attempt);
    for (let k = 1; k <= expected; k++)
      if (!done.has(k)) missing.push({ incidentId: id, attempt: k });
  }
  return missing;
}

/** Fills a row's metric means and mean usage from its counted attempts (none: left undefined). */
function summarizeRow(row: IncidentRow, usages: readonly AttemptRecord["usage"][]): void {
  if (row.scores.size === 0) return;
  const counted = [...row.scores.values()];
  const means = zeroScores();
  for (const metric of METRIC_NAMES)
    means[metric] = exactMean(counted.map((scores) => scores[metric]));
  row.means = means;
  row.usage = {
    inputTokens: exactMean(usages.map((u) => u.inputTokens)),
    outputTokens: exactMean(usages.map((u) => u.outputTokens)),
    cachedTokens: exactMean(usages.map((u) => u.cachedTokens)),
    calls: exactMean(usages.map((u) => u.calls)),
    costUsd: usages.some((u) => u.costUsd === null)
      ? null
      : exactMean(usages.map((u) => u.costUsd ?? 0)),
  };
}

function byIncidentAndAttempt(
  a: { incidentId: string; attempt: number },
  b: { incidentId: string; attempt: number },
): number {
  return a.incidentId < b.incidentId ? -1 : a.incidentId > b.incidentId ? 1 : a.attempt - b.attempt;
}
