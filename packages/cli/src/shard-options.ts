import { checkShard, parseShard, type Shard } from "@distdebug/runner";
import type { ShardScheduler } from "@distdebug/schema";
import { type CommandArgs, optionalString, parsePositiveInt, usageError } from "./command.js";

/** The options `run` takes to select a shard. */
export const shardOptions = {
  shard: { type: "string", description: "run one shard of the incidents: i/n, 1-based (e.g. 2/4)" },
  "shard-index": {
    type: "string",
    description:
      "1-based shard number (default: from JOB_COMPLETION_INDEX or the Slurm array task; see docs/guide/scale-out.md)",
  },
  "shard-count": { type: "string", description: "number of shards (with --shard-index)" },
} as const;

/**
 * The shard selected by `--shard i/n`, `--shard-index i --shard-count n`, or `--shard-count n`
 * alone with the index a scheduler's environment gives (see {@link schedulerShardIndex});
 * undefined when unsharded. Flags always win over the environment, and without a shard flag a
 * run is unsharded even inside a Kubernetes Job or a Slurm array.
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
      throw usageError("--shard i/n cannot be combined with --shard-index or --shard-count");
    return usage(() => parseShard(text));
  }
  if (countText === undefined) {
    if (indexText !== undefined) throw usageError("--shard-index needs --shard-count");
    return undefined;
  }
  const count = parsePositiveInt(countText, "shard-count", 1);
  if (indexText !== undefined)
    return usage(() => checkShard({ index: parsePositiveInt(indexText, "shard-index", 1), count }));
  return usage(() => checkShard({ ...schedulerShardIndex(env, count), count }));
}

type Env = Record<string, string | undefined>;

/**
 * The 1-based shard index a scheduler assigns to this process, for `--shard-count count`:
 * `JOB_COMPLETION_INDEX + 1` in a Kubernetes Indexed Job, or the task's position in a Slurm
 * job array, `(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP + 1`, so
 * `--array=0-3`, `--array=1-4`, `--array=0-9:3` and a `%` throttle all give shards 1..4. The
 * array must hold exactly `count` tasks (`SLURM_ARRAY_TASK_COUNT`) in a regular range: a task of
 * a partly resubmitted array (`sbatch --array=2`) or of a list (`--array=1,4,6`) cannot know its
 * shard and is refused instead of running the wrong incidents. When both schedulers' variables
 * are set the choice is ambiguous and refused: pass `--shard-index`.
 * @throws DistDebugError `USAGE` naming the variables and their values.
 */
export function schedulerShardIndex(
  env: Env,
  count: number,
): { index: number; scheduler: ShardScheduler } {
  const kubernetes = env.JOB_COMPLETION_INDEX;
  const slurm = env.SLURM_ARRAY_TASK_ID;
  if (kubernetes !== undefined && slurm !== undefined)
    throw usageError(
      `--shard-count ${count}: both JOB_COMPLETION_INDEX=${JSON.stringify(kubernetes)} (Kubernetes) and SLURM_ARRAY_TASK_ID=${JSON.stringify(slurm)} (Slurm) are set; pass --shard-index to choose the shard`,
    );
  if (kubernetes !== undefined)
    return { index: wholeVariable(env, "JOB_COMPLETION_INDEX") + 1, scheduler: "kubernetes" };
  if (slurm !== undefined) return { index: slurmArrayPosition(env, count), scheduler: "slurm" };
  throw usageError(
    `--shard-count needs --shard-index, JOB_COMPLETION_INDEX (0-based, Kubernetes) or SLURM_ARRAY_TASK_ID (Slurm job array), found none of them`,
  );
}

function slurmArrayPosition(env: Env, count: number): number {
  const id = wholeVariable(env, "SLURM_ARRAY_TASK_ID");
  const min = wholeVariable(env, "SLURM_ARRAY_TASK_MIN");
  const tasks = wholeVariable(env, "SLURM_ARRAY_TASK_COUNT");
  const step =
    env.SLURM_ARRAY_TASK_STEP === undefined ? 1 : wholeVariable(env, "SLURM_ARRAY_TASK_STEP");
  const max =
    env.SLURM_ARRAY_TASK_MAX === undefined ? undefined : wholeVariable(env, "SLURM_ARRAY_TASK_MAX");
  if (tasks !== count)
    throw usageError(
      `--shard-count ${count}: this Slurm array has ${tasks} task${tasks === 1 ? "" : "s"} (SLURM_ARRAY_TASK_COUNT), not ${count}; submit the whole array (--array=1-${count}), requeue single tasks with scontrol requeue, or name the shard with --shard-index`,
    );
  const regular = step >= 1 && (max === undefined || max - min === (tasks - 1) * step);
  if (!regular || id < min || (id - min) % step !== 0)
    throw usageError(
      `--shard-count ${count}: SLURM_ARRAY_TASK_ID=${id} is not a position of a regular array range (SLURM_ARRAY_TASK_MIN=${min}, SLURM_ARRAY_TASK_MAX=${max ?? "unset"}, SLURM_ARRAY_TASK_STEP=${step}); submit --array=1-${count} (a step or a % throttle are fine, a list is not) or name the shard with --shard-index`,
    );
  return (id - min) / step + 1;
}

function wholeVariable(env: Env, name: string): number {
  const value = env[name];
  if (value === undefined || !/^\d+$/.test(value))
    throw usageError(
      `${name}: expected a whole number >= 0, found ${value === undefined ? "nothing (unset)" : JSON.stringify(value)}`,
    );
  return Number(value);
}

function usage(parse: () => Shard): Shard {
  try {
    return parse();
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
}

/** The default results folder of a shard: one folder per shard beside the unsharded one. */
export function shardOutName(name: string, shard: Shard | undefined): string {
  return shard ? `${name}.shard-${shard.index}-of-${shard.count}` : name;
}
