import type { DatasetIncident } from "@distdebug/dataset";
import type { Attempt } from "@distdebug/schema";
import type { RunEventListener } from "./events.js";
import { attemptKey } from "./plan-jobs.js";

/** What `tallyRun` counts. */
export interface RunTally {
  /** Every selected attempt's record, finished now or earlier, in incident then attempt order. */
  attempts: Attempt[];
  /** Attempts run now (not reused). */
  ran: number;
  /** Attempts reused from an earlier run. */
  reused: number;
  /** Attempts of an earlier run kept as `infra-error` (not rerun without `rerunInfraErrors`). */
  keptInfraErrors: number;
  /** The run was aborted: attempts not started stay pending, running ones ended `interrupted`. */
  interrupted: boolean;
}

/** Options of `tallyRun`. */
export interface TallyRunOptions {
  incidents: readonly DatasetIncident[];
  attemptsPerIncident: number;
  /** The records of the attempts reused. */
  reused: ReadonlyMap<string, Attempt>;
  /** The records of the attempts run now (they win over reused ones). */
  ran: ReadonlyMap<string, Attempt>;
  /** How many reused attempts ended `infra-error`. */
  keptInfraErrors: number;
  interrupted: boolean;
  /** When the run started (`Date.now()`), for the `run-end` event's duration. */
  startedAt: number;
  onEvent: RunEventListener;
}

/** How many of `records` ended with one of `statuses`. */
function countStatus(records: readonly Attempt[], ...statuses: Attempt["status"][]): number {
  return records.filter((record) => statuses.includes(record.status)).length;
}

/**
 * The run's tally: every selected attempt's record in incident then attempt order, and the
 * counts the `run-end` event (emitted here) reports.
 */
export function tallyRun(options: TallyRunOptions): RunTally {
  const attempts: Attempt[] = [];
  for (const incident of options.incidents) {
    for (let attempt = 1; attempt <= options.attemptsPerIncident; attempt++) {
      const key = attemptKey(incident.id, attempt);
      const record = options.ran.get(key) ?? options.reused.get(key);
      if (record) attempts.push(record);
    }
  }
  const ran = options.ran.size;
  options.onEvent({
    type: "run-end",
    done: attempts.length,
    skipped: attempts.length - ran,
    failed: countStatus(attempts, "agent-error", "limit-exceeded"),
    infraErrors: countStatus(attempts, "infra-error"),
    interrupted: options.interrupted,
    durationMs: Date.now() - options.startedAt,
  });
  return {
    attempts,
    ran,
    reused: attempts.length - ran,
    keptInfraErrors: options.keptInfraErrors,
    interrupted: options.interrupted,
  };
}
