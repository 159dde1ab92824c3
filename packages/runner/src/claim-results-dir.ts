import type { Dataset } from "@distdebug/dataset";
import { readRunInfo, runInfoPath, writeRunInfo } from "@distdebug/results";
import { DistDebugError, errorHeadline, type RunConfig, type RunInfo } from "@distdebug/schema";
import { buildRunInfo } from "./run-info.js";
import type { Shard } from "./shard.js";

/** What {@link claimResultsDir} needs of a run. */
export interface ClaimResultsDirOptions {
  config: RunConfig;
  dataset: Dataset;
  shard?: Shard | undefined;
  outDir: string;
  redo?: boolean | undefined;
}

function shardLabel(shard: Shard | RunInfo["shard"] | undefined): string {
  return shard ? `shard ${shard.index}/${shard.count}` : "an unsharded run";
}

function conflict(message: string, data?: Record<string, unknown>, cause?: unknown) {
  return new DistDebugError({ code: "RESULTS_CONFLICT", message, data, cause });
}

/** The folder's run.json, undefined when there is none; an invalid one is a conflict. */
async function readPreviousRunInfo(outDir: string): Promise<RunInfo | undefined> {
  return readRunInfo(outDir).then(
    (file) => file?.value,
    (error: unknown) => {
      throw conflict(
        `${runInfoPath(outDir)} is not a valid run.json (${errorHeadline(error)}); choose another --out or remove the folder`,
        undefined,
        error,
      );
    },
  );
}

/**
 * Throws unless `previous` is a run of the same configuration name and shard, and of the same
 * configuration (or `redo` is asked). Returns whether the configuration is the same.
 */
function checkSameRun(previous: RunInfo, info: RunInfo, options: ClaimResultsDirOptions): boolean {
  const { outDir } = options;
  if (previous.name !== info.name)
    throw conflict(
      `${outDir} holds results of the configuration "${previous.name}", not "${info.name}"; choose another --out`,
      { outDir, existing: previous.name, requested: info.name },
    );
  if (shardLabel(previous.shard) !== shardLabel(info.shard))
    throw conflict(
      `${outDir} holds ${shardLabel(previous.shard)} of "${previous.name}", not ${shardLabel(info.shard)}; give each shard its own --out`,
      { outDir, existing: previous.shard, requested: info.shard },
    );
  const same = previous.configHash === info.configHash;
  if (!same && !options.redo) {
    const changed = [`the configuration "${info.name}"`];
    throw conflict(
      `${outDir} holds attempts of another version of ${changed[0]}; they would stop counting: choose another --out, or pass --redo to redo them under this one`,
      { outDir, changed },
    );
  }
  return same;
}

/** run.json of a rerun of the same configuration: the first creation time, the larger attempt count. */
function continuedRunInfo(previous: RunInfo, info: RunInfo): RunInfo {
  const attempts = Math.max(info.config.run.attempts, previous.config.run.attempts);
  return {
    ...info,
    createdAt: previous.createdAt,
    config: { ...info.config, run: { ...info.config.run, attempts } },
  };
}

/**
 * Writes run.json, refusing a results folder that belongs to another configuration (its
 * finished attempts would silently stop counting) unless `redo` is asked. Another version of
 * the dataset is fine: each attempt's identity holds its own incident's digest, so only the
 * attempts of added or edited incidents run. A run of fewer attempts or a subset of
 * incidents keeps the folder's attempt count. Returns the dataset digest the folder's
 * run.json recorded before (to recognize attempts written before per-incident identities).
 *
 * @throws DistDebugError `RESULTS_CONFLICT` naming the folder and what to do.
 */
export async function claimResultsDir(
  options: ClaimResultsDirOptions,
): Promise<{ previousDatasetDigest?: string }> {
  const info = buildRunInfo({
    config: options.config,
    dataset: options.dataset,
    ...(options.shard ? { shard: options.shard } : {}),
  });
  const previous = await readPreviousRunInfo(options.outDir);
  if (previous === undefined) {
    await writeRunInfo(options.outDir, info);
    return {};
  }
  const same = checkSameRun(previous, info, options);
  await writeRunInfo(options.outDir, same ? continuedRunInfo(previous, info) : info);
  return { previousDatasetDigest: previous.dataset.digest };
}
