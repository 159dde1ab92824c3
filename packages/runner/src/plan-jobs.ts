import type { DatasetIncident } from "@distdebug/dataset";
import {
  type AttemptIdentity,
  attemptDir,
  attemptInputHash,
  readFinishedAttempt,
} from "@distdebug/results";
import type { Attempt } from "@distdebug/schema";
import type { RunEventListener } from "./events.js";
import { HARNESS_VERSION } from "./version.js";

/** One attempt to run: its incident, its 1-based number and its input hash. */
export interface AttemptJob {
  incident: DatasetIncident;
  attempt: number;
  inputHash: string;
}

/** Options of {@link planJobs}. */
export interface PlanJobsOptions {
  incidents: readonly DatasetIncident[];
  attemptsPerIncident: number;
  outDir: string;
  /** sha256 of the config's identity (`configHash`). */
  configHash: string;
  /** Plan every attempt, reusing none. */
  redo: boolean;
  /** Keep attempts that ended `infra-error` (else they are planned again). */
  keepInfraErrors: boolean;
  /**
   * The dataset digest attempts written before per-incident identities may carry and still
   * match (the folder's previous run.json's, when the dataset is unchanged).
   */
  legacyDatasetDigest?: string | undefined;
  onEvent: RunEventListener;
}

/** The attempts to run and those reused, keyed by {@link attemptKey}. */
export interface JobPlan {
  jobs: AttemptJob[];
  reused: Map<string, Attempt>;
  /** How many reused attempts ended `infra-error` (kept, not rerun). */
  keptInfraErrors: number;
}

/** The key of an attempt in a {@link JobPlan}'s maps. */
export function attemptKey(incidentId: string, attempt: number): string {
  return `${incidentId}/${attempt}`;
}

function identityOf(
  options: PlanJobsOptions,
  incident: DatasetIncident,
  attempt: number,
): AttemptIdentity {
  return {
    harnessVersion: HARNESS_VERSION,
    configHash: options.configHash,
    incidentId: incident.id,
    incidentDigest: incident.digest,
    attempt,
  };
}

/** The finished attempt in the results folder this run may reuse, if any (resume). */
async function reusableAttempt(
  options: PlanJobsOptions,
  incident: DatasetIncident,
  identity: AttemptIdentity,
): Promise<Attempt | undefined> {
  if (options.redo) return undefined;
  const legacy = options.legacyDatasetDigest;
  return readFinishedAttempt(
    attemptDir(options.outDir, identity.incidentId, identity.attempt),
    {
      ...identity,
      earlierIncidentDigests: incident.earlierDigests,
      ...(legacy ? { datasetDigest: legacy } : {}),
    },
    { keepInfraErrors: options.keepInfraErrors },
  );
}

/**
 * Plans a run (resume): every selected attempt whose `attempt.json` is valid, finished and
 * carries this run's input hash is reused (an `attempt-skip` event each), every other one
 * becomes a job, in incident then attempt order.
 */
export async function planJobs(options: PlanJobsOptions): Promise<JobPlan> {
  const plan: JobPlan = { jobs: [], reused: new Map(), keptInfraErrors: 0 };
  for (const incident of options.incidents) {
    for (let attempt = 1; attempt <= options.attemptsPerIncident; attempt++) {
      const identity = identityOf(options, incident, attempt);
      const finished = await reusableAttempt(options, incident, identity);
      if (finished) {
        plan.reused.set(attemptKey(incident.id, attempt), finished);
        if (finished.status === "infra-error") plan.keptInfraErrors += 1;
        const status = finished.status;
        options.onEvent({ type: "attempt-skip", incidentId: incident.id, attempt, status });
      } else plan.jobs.push({ incident, attempt, inputHash: attemptInputHash(identity) });
    }
  }
  return plan;
}
