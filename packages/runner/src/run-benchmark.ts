import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Agent, apiKeyEnvName } from "@distdebug/agents";
import type { Dataset, DatasetIncident } from "@distdebug/dataset";
import { removeAttemptLeftovers, runLockPath } from "@distdebug/results";
import { acquireFileLock, type RunConfig, resolveConfigEnv } from "@distdebug/schema";
import { defaultCacheDir } from "@distdebug/workspace";
import { countCacheDirOf } from "./attempt-scoring.js";
import { claimResultsDir } from "./claim-results-dir.js";
import type { RunEventListener } from "./events.js";
import type { MirrorOptions } from "./find-mirror.js";
import { incidentPreparer } from "./incident-preparer.js";
import { type JobPlan, planJobs } from "./plan-jobs.js";
import { checkRunInputs } from "./preflight.js";
import { attemptPolicy } from "./run-attempt.js";
import { configHash } from "./run-info.js";
import { runJobs } from "./run-jobs.js";
import { checkSandboxEnvelope } from "./sandbox-envelope.js";
import { incidentsOfShard, type Shard } from "./shard.js";
import { type RunTally, tallyRun } from "./tally-run.js";
import { removeDeadWorkDirs } from "./work-dirs.js";

/** Options of {@link runBenchmark}. */
export interface RunBenchmarkOptions {
  /** The run config as loaded (`${VAR}` references unresolved). */
  config: RunConfig;
  dataset: Dataset;
  /** The incidents to run; default every incident of the dataset. */
  incidents?: readonly DatasetIncident[];
  /**
   * Run only this shard's incidents (see {@link shardOf}); run.json records it. A results
   * folder holds one shard: another shard of the same run needs its own `outDir`.
   */
  shard?: Shard;
  /** Attempts per incident; default `config.run.attempts`. */
  attempts?: number;
  /** The results folder. */
  outDir: string;
  /** Attempts run at once; default `config.run.concurrency`. */
  concurrency?: number;
  /** Redo every selected attempt even when a valid one exists. Default false. */
  redo?: boolean;
  /**
   * Rerun attempts that ended `infra-error` (a harness fault). Default false: they are kept,
   * and the run stays incomplete until they are rerun explicitly (THREATS.md, section 3).
   */
  rerunInfraErrors?: boolean;
  /** Repository and workspace caches. Default: workspace's `defaultCacheDir()`. */
  cacheDir?: string;
  /**
   * Keep the repository size's row counts in `<cacheDir>/row-counts` across runs (by blob id
   * and counting rule; a damaged entry is counted again). Default true; false counts them once
   * per process.
   */
  countCache?: boolean;
  /** Local mirrors of the remote repositories (the catalog's), used instead of clones. */
  mirrors?: MirrorOptions;
  /** The environment `${VAR}` references and API keys are read from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Accept `backend: "no-sandbox"` (the agent runs on the host as this user): development
   * only; `package` and `verify` refuse its attempts. Default false: such a config is refused.
   */
  allowNoSandbox?: boolean;
  /** Use this agent instead of the one the config names (tests, custom harnesses). */
  agent?: Agent;
  /** On abort: no new attempt starts, running ones end as `interrupted`. */
  signal?: AbortSignal;
  onEvent?: RunEventListener;
}

/** What {@link runBenchmark} did: the folder and the run's tally. */
export interface RunBenchmarkResult extends RunTally {
  outDir: string;
}

/** What a run settled before taking the results folder. */
interface RunSetup {
  /** The config as written, with the attempts and concurrency actually used (run.json records them). */
  config: RunConfig;
  /** `config` with `${VAR}` resolved, in memory only. */
  resolvedConfig: RunConfig;
  secrets: string[];
  /** The selected incidents of this shard. */
  incidents: readonly DatasetIncident[];
  agent: Agent;
  attemptsPerIncident: number;
  concurrency: number;
  cacheDir: string;
  /** Attempts' working folders: `<cacheDir>/tmp`. */
  tempDir: string;
}

/** The config with the attempts and concurrency of the options (they do not change results). */
function effectiveConfig(options: RunBenchmarkOptions): RunConfig {
  return {
    ...options.config,
    run: {
      ...options.config.run,
      ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    },
  };
}

/** Settles the config, the incidents and the agent, and checks the run's inputs (`checkRunInputs`). */
async function setUpRun(options: RunBenchmarkOptions): Promise<RunSetup> {
  const env = options.env ?? process.env;
  const config = effectiveConfig(options);
  const resolvedConfig = resolveConfigEnv(config, env);
  const secrets = attemptSecrets(config, env);
  const selected = options.incidents ?? options.dataset.incidents;
  const incidents = options.shard ? incidentsOfShard(selected, options.shard) : selected;
  const { mirrors, ...rest } = options;
  const agent = await checkRunInputs({
    ...rest,
    config,
    incidents,
    mirrors: [...(mirrors?.dirs ?? []), ...Object.values(mirrors?.map ?? {})],
  });
  const cacheDir = options.cacheDir ?? defaultCacheDir({ env });
  return {
    config,
    resolvedConfig,
    secrets,
    incidents,
    agent,
    cacheDir,
    attemptsPerIncident: config.run.attempts,
    concurrency: Math.max(1, config.run.concurrency),
    tempDir: join(cacheDir, "tmp"),
  };
}

/**
 * Resume: claims the results folder (run.json), removes what a killed run left behind (safe:
 * this run holds the folder's lock) and plans the attempts that are not finished yet.
 */
async function resumeRun(
  options: RunBenchmarkOptions,
  run: RunSetup,
  onEvent: RunEventListener,
): Promise<JobPlan> {
  const { previousDatasetDigest } = await claimResultsDir({ ...options, config: run.config });
  await removeAttemptLeftovers(
    options.outDir,
    run.incidents.map((incident) => incident.id),
  );
  await removeDeadWorkDirs(run.tempDir);
  return planJobs({
    incidents: run.incidents,
    attemptsPerIncident: run.attemptsPerIncident,
    outDir: options.outDir,
    configHash: configHash(run.config),
    redo: options.redo ?? false,
    keepInfraErrors: !options.rerunInfraErrors,
    // Attempts written before per-incident identities hashed the whole dataset: they still
    // match while the dataset is the one they were made with (then their incident is too).
    legacyDatasetDigest:
      previousDatasetDigest === options.dataset.digest ? previousDatasetDigest : undefined,
    onEvent,
  });
}

/** The warnings and the `run-start` event before the first attempt. */
function announceRun(
  options: RunBenchmarkOptions,
  run: RunSetup,
  plan: JobPlan,
  onEvent: RunEventListener,
): void {
  for (const incident of run.incidents)
    if (!incident.scorable)
      onEvent({
        type: "run-warn",
        message: `${incident.id} has no gold labels: its diagnoses are recorded but not scored`,
      });
  onEvent({
    type: "run-start",
    name: run.config.name ?? "run",
    outDir: options.outDir,
    incidents: run.incidents.length,
    attempts: run.incidents.length * run.attemptsPerIncident,
    pending: plan.jobs.length,
  });
  if (plan.keptInfraErrors > 0)
    onEvent({
      type: "run-warn",
      message: `${plan.keptInfraErrors} attempts of an earlier run ended infra-error and are kept, not rerun (rerun them explicitly); the results stay incomplete until then`,
    });
}

/**
 * Runs the selected incidents' attempts with a bounded pool and resume: an attempt whose
 * `attempt.json` is valid, finished and carries the same input hash is reused (unless
 * `redo`), everything else is run. On abort no new attempt starts and running ones end as
 * `interrupted`; finished attempts are never touched. The steps: set up and check the
 * inputs, take the folder's lock, check the sandbox envelope, claim the folder and plan the
 * jobs (resume), run them in a worker pool, tally.
 *
 * @example
 * ```ts
 * const dataset = await loadDataset("examples/dataset");
 * const config = await loadConfig({ files: ["configs/baseline/default.yaml"] });
 * const result = await runBenchmark({ config, dataset, outDir: "results/baseline", onEvent: console.log });
 * ```
 */
export async function runBenchmark(options: RunBenchmarkOptions): Promise<RunBenchmarkResult> {
  const startedAt = Date.now();
  const onEvent = options.onEvent ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  const run = await setUpRun(options);
  await mkdir(options.outDir, { recursive: true });
  await mkdir(run.tempDir, { recursive: true });
  // One run per results folder at a time; a lock left by a killed run is broken.
  const lock = await acquireFileLock(runLockPath(options.outDir), {
    wait: false,
    code: "RESULTS_CONFLICT",
    what: `the results folder ${options.outDir}`,
  });
  try {
    const protectedPaths = await checkSandboxEnvelope({
      policy: attemptPolicy({ config: run.resolvedConfig, agent: run.agent }),
      protectedFolders: [options.dataset.dir, run.cacheDir, options.outDir],
      allowNoSandbox: options.allowNoSandbox ?? false,
    });
    const plan = await resumeRun(options, run, onEvent);
    announceRun(options, run, plan, onEvent);
    const preparer = incidentPreparer({
      cacheDir: run.cacheDir,
      countCacheDir: countCacheDirOf(run.cacheDir, options.countCache),
      mirrors: options.mirrors,
      signal,
      onEvent,
    });
    const ran = await runJobs({
      jobs: plan.jobs,
      concurrency: run.concurrency,
      shared: {
        outDir: options.outDir,
        config: run.config,
        resolvedConfig: run.resolvedConfig,
        agent: run.agent,
        tempDir: run.tempDir,
        secrets: run.secrets,
        protectedPaths,
        signal,
      },
      prepare: preparer.prepare,
      release: preparer.release,
      onEvent,
    }).finally(() => preparer.close());
    const tally = tallyRun({
      incidents: run.incidents,
      attemptsPerIncident: run.attemptsPerIncident,
      reused: plan.reused,
      ran,
      keptInfraErrors: plan.keptInfraErrors,
      interrupted: signal.aborted,
      startedAt,
      onEvent,
    });
    return { outDir: options.outDir, ...tally };
  } finally {
    await lock.release();
  }
}

/** The values no file of an attempt may hold: the model's API key, as read from `env`. */
function attemptSecrets(config: RunConfig, env: Record<string, string | undefined>): string[] {
  const key = config.model ? env[apiKeyEnvName(config.model)] : undefined;
  return key ? [key] : [];
}
