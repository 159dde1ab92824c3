import { z } from "zod";
import { formatTag, Sha256, Timestamp } from "./common.js";
import { RunConfig } from "./config.js";

/**
 * The scheduler whose environment assigned a shard (`distdebug run --shard-count N` inside a
 * Kubernetes Indexed Job or a Slurm job array). Absent when the flags named the shard.
 */
export const ShardScheduler = z.enum(["kubernetes", "slurm"]);
/** The scheduler that assigned a shard. */
export type ShardScheduler = z.infer<typeof ShardScheduler>;

/** `run.json`: what produced a results folder. Secrets never appear (references stay `${VAR}`). */
export const RunInfo = z.strictObject({
  format: formatTag("run", 1),
  name: z.string().min(1),
  createdAt: Timestamp,
  /** The resolved config, with secrets redacted. */
  config: RunConfig,
  /** sha256 of the canonical config. */
  configHash: Sha256,
  harness: z.strictObject({
    version: z.string(),
    packages: z.record(z.string(), z.string()),
  }),
  /** Present when the run is one shard of a larger run (`distdebug run --shard i/n`). */
  shard: z
    .strictObject({
      /** 1-based shard number. */
      index: z.number().int().min(1),
      /** Number of shards. */
      count: z.number().int().min(1),
      /** Who assigned the index: absent when `--shard` or `--shard-index` named it (older files have none). */
      scheduler: ShardScheduler.optional(),
    })
    .optional(),
  dataset: z.strictObject({
    name: z.string(),
    version: z.string(),
    digest: Sha256,
    path: z.string().optional(),
  }),
  host: z.strictObject({
    platform: z.string(),
    arch: z.string(),
    node: z.string(),
    cpus: z.number().int().min(0),
    memoryBytes: z.number().min(0),
    sandboxBackend: z.string().optional(),
  }),
});
/** `run.json`. */
export type RunInfo = z.infer<typeof RunInfo>;
