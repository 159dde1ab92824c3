import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Agent, apiKeyEnvName } from "@distdebug/agents";
import type { Dataset, DatasetIncident } from "@distdebug/dataset";
import {
  attemptDir,
  attemptInputHash,
  readFinishedAttempt,
  readRunInfo,
  redactSecrets,
  removeAttemptLeftovers,
  runInfoPath,
  runLockPath,
  writeRunInfo,
} from "@distdebug/results";
import {
  type Attempt,
  acquireFileLock,
  DistDebugError,
  type RunConfig,
  resolveConfigEnv,
} from "@distdebug/schema";
import { defaultCacheDir } from "@distdebug/workspace";
import type { RunEvent, RunEventListener } from "./events.js";
import { checkRunInputs } from "./preflight.js";
import { type PreparedIncident, prepareIncident } from "./prepared-incident.js";
import { attemptPolicy, runAttempt } from "./run-attempt.js";
import { buildRunInfo, configHash } from "./run-info.js";
import { checkSandboxEnvelope } from "./sandbox-envelope.js";
import { incidentsOfShard, type Shard } from "./shard.js";
import { HARNESS_VERSION } from "./version.js";
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

/** What {@link runBenchmark} did. */
export interface RunBenchmarkResult {
  outDir: string;
  /** Every selected attempt's record, finished now or earlier, in incident then attempt order. */
  attempts: Attempt[];
  /** Attempts run now (not reused). */
  ran: number;
  /** Attempts reused from an earlier run. */
  reused: number;
  /** Attempts of an earlier run kept as `infra-error` (not rerun without `rerunInfraErrors`). */
  keptInfraErrors: number;
  interrupted: boolean;
}

function shardLabel(shard: Shard | undefined): string {
  return shard ? `shard ${shard.index}/${shard.count}` : "an unsharded run";
}

/**
 * Writes run.json, refusing a results folder that belongs to another configuration (its
 * finished attempts would silently stop counting) unless `redo` is asked. Another version of
 * the dataset is fine: each attempt's identity holds its own incident's digest, so only the
 * attempts of added or edited incidents run. A run of fewer attempts or a subset of
 * incidents keeps the folder's attempt count. Returns the dataset digest the folder's
 * run.json recorded before (to recognize attempts written before per-incident identities).
 */
async function claimResultsDir(
  options: RunBenchmarkOptions,
): Promise<{ previousDatasetDigest?: string }> {
  const info = buildRunInfo({
    config: options.config,
    dataset: options.dataset,
    ...(options.shard ? { shard: options.shard } : {}),
  });
  const previous = await readRunInfo(options.outDir).then(
    (file) => file?.value,
    (error: unknown) => {
      throw new DistDebugError({
        code: "RESULTS_CONFLICT",
        message: `${runInfoPath(options.outDir)} is not a valid run.json (${DistDebugError.isInstance(error) ? error.message.split("\n")[0] : String(error)}); choose another --out or remove the folder`,
        cause: error,
      });
    },
  );
  if (previous !== undefined) {
    if (previous.name !== info.name) {
      throw new DistDebugError({
        code: "RESULTS_CONFLICT",
        message: `${options.outDir} holds results of the configuration "${previous.name}", not "${info.name}"; choose another --out`,
        data: { outDir: options.outDir, existing: previous.name, requested: info.name },
      });
    }
    if (shardLabel(previous.shard) !== shardLabel(info.shard)) {
      throw new DistDebugError({
        code: "RESULTS_CONFLICT",
        message: `${options.outDir} holds ${shardLabel(previous.shard)} of "${previous.name}", not ${shardLabel(info.shard)}; give each shard its own --out`,
        data: { outDir: options.outDir, existing: previous.shard, requested: info.shard },
      });
    }
    const changed =
      previous.configHash === info.configHash ? [] : [`the configuration "${info.name}"`];
    if (changed.length > 0 && !options.redo) {
      throw new DistDebugError({
        code: "RESULTS_CONFLICT",
        message: `${options.outDir} holds attempts of another version of ${changed.join(" and ")}; they would stop counting: choose another --out, or pass --redo to redo them under this one`,
        data: { outDir: options.outDir, changed },
      });
    }
    if (changed.length === 0) {
      info.createdAt = previous.createdAt;
      info.config = {
        ...info.config,
        run: {
          ...info.config.run,
          attempts: Math.max(info.config.run.attempts, previous.config.run.attempts),
        },
      };
    }
  }
  await writeRunInfo(options.outDir, info);
  return previous ? { previousDatasetDigest: previous.dataset.digest } : {};
}

/**
 * Runs the selected incidents' attempts with a bounded pool and resume: an attempt whose
 * `attempt.json` is valid, finished and carries the same input hash is reused (unless
 * `redo`), everything else is run. On abort no new attempt starts and running ones end as
 * `interrupted`; finished attempts are never touched.
 *
 * @example
 * ```ts
 * const dataset = await loadDataset("examples/dataset");
 * const config = await loadConfig({ files: ["configs/baseline/default.yaml"] });
 * const result = await runBenchmark({ config, dataset, outDir: "results/baseline", onEvent: console.log });
 * ```
 */
export async function runBenchmark(options: RunBenchmarkOptions): Promise<RunBenchmarkResult> {
  const started = Date.now();
  const emit = options.onEvent ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  // run.json records the attempts and concurrency actually used (they do not change results).
  const config: RunConfig = {
    ...options.config,
    run: {
      ...options.config.run,
      ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    },
  };
  const resolvedConfig = resolveConfigEnv(config, options.env ?? process.env);
  const secrets = attemptSecrets(config, options.env ?? process.env);
  const selected = options.incidents ?? options.dataset.incidents;
  const incidents = options.shard ? incidentsOfShard(selected, options.shard) : selected;
  const agent = await checkRunInputs({ ...options, config, incidents });
  const attemptsPerIncident = options.attempts ?? config.run.attempts;
  const concurrency = Math.max(1, options.concurrency ?? config.run.concurrency);
  const cacheDir = options.cacheDir ?? defaultCacheDir({ env: options.env ?? process.env });
  const tempDir = join(cacheDir, "tmp");
  await mkdir(options.outDir, { recursive: true });
  await mkdir(tempDir, { recursive: true });
  // One run per results folder at a time; a lock left by a killed run is broken.
  const lock = await acquireFileLock(runLockPath(options.outDir), {
    wait: false,
    code: "RESULTS_CONFLICT",
    what: `the results folder ${options.outDir}`,
  });
  try {
    const protectedPaths = await checkSandboxEnvelope({
      policy: attemptPolicy({ config: resolvedConfig, agent }),
      protectedFolders: [options.dataset.dir, cacheDir, options.outDir],
      allowNoSandbox: options.allowNoSandbox ?? false,
    });
    const { previousDatasetDigest } = await claimResultsDir({ ...options, config });
    // What a killed run left behind (safe: this run holds the results folder's lock).
    await removeAttemptLeftovers(
      options.outDir,
      incidents.map((incident) => incident.id),
    );
    await removeDeadWorkDirs(tempDir);
    const hashOfConfig = configHash(config);
    // Attempts written before per-incident identities hashed the whole dataset: they still
    // match while the dataset is the one they were made with (then their incident is too).
    const legacyDigest =
      previousDatasetDigest === options.dataset.digest ? previousDatasetDigest : undefined;
    const records = new Map<string, Attempt>();
    const jobs: { incident: DatasetIncident; attempt: number; inputHash: string }[] = [];
    for (const incident of incidents) {
      for (let attempt = 1; attempt <= attemptsPerIncident; attempt++) {
        const identity = {
          harnessVersion: HARNESS_VERSION,
          configHash: hashOfConfig,
          incidentId: incident.id,
          incidentDigest: incident.digest,
          attempt,
        };
        const inputHash = attemptInputHash(identity);
        const finished = options.redo
          ? undefined
          : await readFinishedAttempt(
              attemptDir(options.outDir, incident.id, attempt),
              { ...identity, ...(legacyDigest ? { datasetDigest: legacyDigest } : {}) },
              { keepInfraErrors: !options.rerunInfraErrors },
            );
        if (finished) {
          records.set(`${incident.id}/${attempt}`, finished);
          emit({ type: "attempt-skip", incidentId: incident.id, attempt, status: finished.status });
        } else jobs.push({ incident, attempt, inputHash });
      }
    }
    for (const incident of incidents) {
      if (!incident.scorable) {
        emit({
          type: "run-warn",
          message: `${incident.id} has no gold labels: its diagnoses are recorded but not scored`,
        });
      }
    }
    emit({
      type: "run-start",
      name: config.name ?? "run",
      outDir: options.outDir,
      incidents: incidents.length,
      attempts: incidents.length * attemptsPerIncident,
      pending: jobs.length,
    });

    // Each incident is prepared once (repository, base workspace, gold, scorer) and shared.
    const prepared = new Map<string, Promise<PreparedIncident>>();
    const prepare = (incident: DatasetIncident) => {
      let entry = prepared.get(incident.id);
      if (!entry) {
        entry = prepareIncident({
          incident,
          cacheDir,
          signal,
          onEvent: (event) => emit({ type: "incident-workspace", incidentId: incident.id, event }),
        });
        // Awaited by each attempt, which records a failure as its infra error; until then the
        // rejection must not count as unhandled (Node would end the process).
        entry.catch(() => {});
        prepared.set(incident.id, entry);
      }
      return entry;
    };

    const keptInfraErrors = [...records.values()].filter(
      (record) => record.status === "infra-error",
    ).length;
    if (keptInfraErrors > 0) {
      emit({
        type: "run-warn",
        message: `${keptInfraErrors} attempts of an earlier run ended infra-error and are kept, not rerun (rerun them explicitly); the results stay incomplete until then`,
      });
    }
    let ran = 0;
    let next = 0;
    const worker = async () => {
      while (!signal.aborted) {
        const job = jobs[next++];
        if (!job) return;
        const record = await runAttempt({
          incident: job.incident,
          prepared: prepare(job.incident),
          attempt: job.attempt,
          outDir: options.outDir,
          config,
          resolvedConfig,
          agent,
          inputHash: job.inputHash,
          tempDir,
          secrets,
          protectedPaths,
          signal,
          onEvent: (event) => emit(redactEvent(event, secrets)),
        });
        ran += 1;
        records.set(`${job.incident.id}/${job.attempt}`, record);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker),
    );

    const attempts: Attempt[] = [];
    for (const incident of incidents) {
      for (let attempt = 1; attempt <= attemptsPerIncident; attempt++) {
        const record = records.get(`${incident.id}/${attempt}`);
        if (record) attempts.push(record);
      }
    }
    const failed = attempts.filter(
      (record) => record.status === "agent-error" || record.status === "limit-exceeded",
    ).length;
    const infraErrors = attempts.filter((record) => record.status === "infra-error").length;
    emit({
      type: "run-end",
      done: attempts.length,
      skipped: attempts.length - ran,
      failed,
      infraErrors,
      interrupted: signal.aborted,
      durationMs: Date.now() - started,
    });
    return {
      outDir: options.outDir,
      attempts,
      ran,
      reused: attempts.length - ran,
      keptInfraErrors,
      interrupted: signal.aborted,
    };
  } finally {
    await lock.release();
  }
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

/** The values no file of an attempt may hold: the model's API key, as read from `env`. */
function attemptSecrets(config: RunConfig, env: Record<string, string | undefined>): string[] {
  const key = config.model ? env[apiKeyEnvName(config.model)] : undefined;
  return key ? [key] : [];
}
