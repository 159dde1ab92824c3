import {
  type Attempt,
  DistDebugError,
  type Incident,
  type ScoreMetrics,
  Summary,
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
  expected = Math.max(expected, 1);

  const seen = new Set<string>();
  const usageByIncident = new Map<string, AttemptRecord["usage"][]>();
  const rerun: Aggregation["rerun"] = [];
  let attemptRecords = 0;
  const tokens: number[] = [];
  const costs: number[] = [];
  let costKnown = true;
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
    attemptRecords++;
    const usage = attempt.usage;
    for (const field of ["inputTokens", "outputTokens", "cachedTokens", "calls"] as const)
      if (!Number.isFinite(usage?.[field]) || usage[field] < 0)
        invalid(`${path}.usage.${field}`, "expected a non-negative number", usage?.[field]);
    if (usage.costUsd !== null && (!Number.isFinite(usage.costUsd) || usage.costUsd < 0))
      invalid(`${path}.usage.costUsd`, "expected a non-negative number or null", usage.costUsd);
    tokens.push(usage.inputTokens + usage.outputTokens);
    if (usage.costUsd === null) costKnown = false;
    else costs.push(usage.costUsd);
    if (attempt.status === "infra-error" || attempt.status === "interrupted") {
      if (attempt.status === "infra-error") row.infraErrors++;
      else row.interrupted++;
      rerun.push({
        incidentId: attempt.incidentId,
        attempt: attempt.attempt,
        status: attempt.status,
      });
      return;
    }
    let scores: Record<MetricName, number>;
    if (FAILED.has(attempt.status) || attempt.metrics === undefined) {
      if (attempt.status !== "succeeded" && !FAILED.has(attempt.status))
        invalid(
          `${path}.status`,
          "expected succeeded, agent-error, limit-exceeded, infra-error or interrupted",
          attempt.status,
        );
      row.failed++;
      scores = zeroScores();
    } else {
      if (attempt.status !== "succeeded")
        invalid(
          `${path}.status`,
          "expected succeeded, agent-error, limit-exceeded, infra-error or interrupted",
          attempt.status,
        );
      scores = zeroScores();
      for (const metric of METRIC_NAMES) {
        const value = attempt.metrics[metric];
        if (typeof value !== "number" || !(value >= 0 && value <= 1))
          invalid(`${path}.metrics.${metric}`, "expected a share from 0 to 1", value);
        scores[metric] = value;
      }
    }
    row.scores.set(attempt.attempt, scores);
    const list = usageByIncident.get(attempt.incidentId) ?? [];
    list.push(usage);
    usageByIncident.set(attempt.incidentId, list);
  });

  const rows = [...rowsById.values()].sort(byId);
  const missing: Aggregation["missing"] = [];
  for (const row of rows) {
    const id = row.incident.id;
    const done = new Set(row.scores.keys());
    for (const entry of rerun) if (entry.incidentId === id) done.add(entry.attempt);
    for (let k = 1; k <= expected; k++)
      if (!done.has(k)) missing.push({ incidentId: id, attempt: k });
    if (row.scores.size === 0) continue;
    const counted = [...row.scores.values()];
    const means = zeroScores();
    for (const metric of METRIC_NAMES)
      means[metric] = exactMean(counted.map((scores) => scores[metric]));
    row.means = means;
    const usages = usageByIncident.get(id) ?? [];
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
  rerun.sort((a, b) =>
    a.incidentId < b.incidentId ? -1 : a.incidentId > b.incidentId ? 1 : a.attempt - b.attempt,
  );
  return {
    attemptsPerIncident: expected,
    rows,
    scored: rows.filter((row) => row.means !== undefined),
    missing,
    rerun,
    attemptRecords,
    totalTokens: exactSum(tokens),
    totalCostUsd: costKnown ? exactSum(costs) : null,
  };
}
