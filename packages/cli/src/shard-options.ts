import { checkShard, parseShard, type Shard } from "@distdebug/runner";
import { type CommandArgs, optionalString, parsePositiveInt, UsageError } from "./command.js";

/** The options `run` takes to select a shard. */
export const shardOptions = {
  shard: { type: "string", description: "run one shard of the incidents: i/n, 1-based (e.g. 2/4)" },
  "shard-index": {
    type: "string",
    description: "1-based shard number (default: $JOB_COMPLETION_INDEX + 1 when set)",
  },
  "shard-count": { type: "string", description: "number of shards (with --shard-index)" },
} as const;

/**
 * The shard selected by `--shard i/n`, or `--shard-count n` with `--shard-index i` or the
 * 0-based `JOB_COMPLETION_INDEX` that Kubernetes Indexed Jobs set; undefined when unsharded.
 */
export function shardFromArgs(
  args: CommandArgs,
  env: Record<string, string | undefined>,
): Shard | undefined {
  const text = optionalString(args, "shard");
  const indexText = optionalString(args, "shard-index");
  const countText = optionalString(args, "shard-count");
  if (text !== undefined) {
    if (indexText !== undefined || countText !== undefined)
      throw new UsageError("--shard i/n cannot be combined with --shard-index or --shard-count");
    return usage(() => parseShard(text));
  }
  if (countText === undefined) {
    if (indexText !== undefined) throw new UsageError("--shard-index needs --shard-count");
    return undefined;
  }
  const count = parsePositiveInt(countText, "shard-count", 1);
  const index =
    indexText !== undefined ? parsePositiveInt(indexText, "shard-index", 1) : indexFromEnv(env);
  return usage(() => checkShard({ index, count }));
}

function indexFromEnv(env: Record<string, string | undefined>): number {
  const value = env.JOB_COMPLETION_INDEX;
  if (value === undefined || !/^\d+$/.test(value))
    throw new UsageError(
      `--shard-count needs --shard-index or JOB_COMPLETION_INDEX (0-based), found ${value === undefined ? "neither" : JSON.stringify(value)}`,
    );
  return Number(value) + 1;
}

function usage(parse: () => Shard): Shard {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The default results folder of a shard: one folder per shard beside the unsharded one. */
export function shardOutName(name: string, shard: Shard | undefined): string {
  return shard ? `${name}.shard-${shard.index}-of-${shard.count}` : name;
}
