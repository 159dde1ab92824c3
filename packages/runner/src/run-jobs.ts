import type { DatasetIncident } from "@distdebug/dataset";
import { redactSecrets } from "@distdebug/results";
import type { Attempt } from "@distdebug/schema";
import type { RunEvent, RunEventListener } from "./events.js";
import { type AttemptJob, attemptKey } from "./plan-jobs.js";
import type { PreparedIncident } from "./prepared-incident.js";
import { type RunAttemptOptions, runAttempt } from "./run-attempt.js";
import { runPool } from "./worker-pool.js";

/** The options every attempt of a run shares (all of {@link RunAttemptOptions} but the job's). */
export type SharedAttemptOptions = Omit<
  RunAttemptOptions,
  "incident" | "prepared" | "attempt" | "inputHash" | "onEvent"
>;

/** Options of {@link runJobs}. */
export interface RunJobsOptions {
  jobs: readonly AttemptJob[];
  /** Attempts run at once. */
  concurrency: number;
  shared: SharedAttemptOptions;
  /** The incident made ready for its attempts (see `incidentPreparer`). */
  prepare: (incident: DatasetIncident) => Promise<PreparedIncident>;
  /** Called once an incident's last job has ended, so what it holds can be let go. */
  release?: (incident: DatasetIncident) => Promise<void>;
  /** Receives every attempt's events, with the secrets redacted. */
  onEvent: RunEventListener;
}

/**
 * Runs the jobs' attempts in a worker pool of `concurrency`. On abort no new attempt starts
 * and running ones end as `interrupted`. Returns the record of each attempt run, keyed by
 * `attemptKey`.
 */
export async function runJobs(options: RunJobsOptions): Promise<Map<string, Attempt>> {
  const { shared } = options;
  const secrets = shared.secrets ?? [];
  const records = new Map<string, Attempt>();
  const left = new Map<string, number>();
  for (const job of options.jobs) left.set(job.incident.id, (left.get(job.incident.id) ?? 0) + 1);
  await runPool(
    options.jobs,
    { concurrency: options.concurrency, signal: shared.signal },
    async (job) => {
      const record = await runAttempt({
        ...shared,
        incident: job.incident,
        prepared: options.prepare(job.incident),
        attempt: job.attempt,
        inputHash: job.inputHash,
        onEvent: (event) => options.onEvent(redactEvent(event, secrets)),
      });
      records.set(attemptKey(job.incident.id, job.attempt), record);
      const remaining = (left.get(job.incident.id) ?? 1) - 1;
      left.set(job.incident.id, remaining);
      if (remaining === 0) await options.release?.(job.incident);
    },
  );
  return records;
}

/**
 * The event with every copy of the secrets replaced by `[REDACTED]`: an attempt's events
 * quote what the agent ran (a command the model wrote) and how it ended.
 */
function redactEvent(event: RunEvent, secrets: readonly string[]): RunEvent {
  if (secrets.length === 0) return event;
  const text = JSON.stringify(event);
  const redacted = redactSecrets(text, secrets);
  return redacted === text ? event : (JSON.parse(String(redacted)) as RunEvent);
}
