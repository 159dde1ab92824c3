import { cpus, totalmem } from "node:os";
import { DEFAULT_BASELINE_ROW_BUDGET } from "@distdebug/agents";
import type { Dataset } from "@distdebug/dataset";
import { canonicalJson, type RunConfig, type RunInfo, sha256Hex } from "@distdebug/schema";
import type { Shard } from "./shard.js";
import { HARNESS_VERSION } from "./version.js";

/**
 * The part of a config that decides an attempt's result: the agent, the model, the
 * environment and the seed. The name, attempt count and concurrency do not. Defaults are
 * applied first, so a value left out and the same value written are one identity
 * (`--agent baseline` and `configs/baseline/default.yaml`).
 */
export function configIdentity(config: RunConfig): unknown {
  const agent =
    config.agent.type === "baseline"
      ? { ...config.agent, rowBudget: config.agent.rowBudget ?? DEFAULT_BASELINE_ROW_BUDGET }
      : config.agent;
  return {
    agent,
    model: config.model ?? null,
    environment: config.environment,
    seed: config.run.seed,
  };
}

/** sha256 of {@link configIdentity}. */
export function configHash(config: RunConfig): string {
  return sha256Hex(canonicalJson(configIdentity(config)));
}

function shardInfo({ index, count, scheduler }: Shard): NonNullable<RunInfo["shard"]> {
  return { index, count, ...(scheduler ? { scheduler } : {}) };
}

/** Builds `run.json` for a run. The config is stored as written: `${VAR}` references stay unresolved. */
export function buildRunInfo(options: {
  config: RunConfig;
  dataset: Dataset;
  sandboxBackend?: string;
  shard?: Shard;
}): RunInfo {
  const { config, dataset } = options;
  return {
    format: "distdebug.run/1",
    name: config.name ?? "run",
    createdAt: new Date().toISOString(),
    config,
    configHash: configHash(config),
    harness: { version: HARNESS_VERSION, packages: { "@distdebug/runner": HARNESS_VERSION } },
    ...(options.shard ? { shard: shardInfo(options.shard) } : {}),
    dataset: {
      name: dataset.index.name,
      version: dataset.index.version,
      digest: dataset.digest,
      path: dataset.dir,
    },
    host: {
      platform: process.platform,
      arch: process.arch,
      node: process.version,
      cpus: cpus().length,
      memoryBytes: totalmem(),
      ...(options.sandboxBackend ? { sandboxBackend: options.sandboxBackend } : {}),
    },
  };
}
