import { resolve } from "node:path";
import { loadConfig } from "@distdebug/schema";
import {
  defineCommand,
  defined,
  optionalPositiveInt,
  optionalString,
  parsePositiveInt,
  requireString,
  stringList,
  usageError,
} from "../command.js";
import { buildArrayScript } from "../slurm/array-script.js";

export default defineCommand({
  usage:
    "slurm script --config <file> --shards N --out <folder> [--dataset <dir>] [--bug <id|glob>]... [--partition <name>] [--time <limit>] [--mem <size>]",
  description:
    "Prints an sbatch script that runs a benchmark as a Slurm job array, one task per shard (--array=1-N). Each task runs `distdebug run --shard-count N` in the folder sbatch was called from, takes its shard from SLURM_ARRAY_TASK_ID, and writes <out>/<config name>.shard-<i>-of-<N>. The API key comes from the submitting user's environment (the script names the variable, never its value); tasks are requeued on node failure and a requeued task resumes its shard. Merge the shard folders with distdebug merge. See docs/guide/scale-out.md.",
  options: {
    config: {
      type: "string",
      description: "run config YAML (as the tasks open it, from the submit folder)",
    },
    shards: { type: "string", description: "number of shards (array tasks)" },
    out: { type: "string", description: "folder of the shard results folders" },
    dataset: { type: "string", description: "dataset folder (default: bundled)" },
    bug: { type: "string", multiple: true, description: "incident id or glob (repeatable)" },
    runs: { type: "string", description: "attempts per incident (default: the config's)" },
    "cache-dir": {
      type: "string",
      description: "repository cache of the tasks (default ~/.cache/distdebug)",
    },
    parallelism: {
      type: "string",
      description: "tasks at once, --array=1-N%k (default: no limit)",
    },
    partition: { type: "string", description: "#SBATCH --partition (default: the cluster's)" },
    time: {
      type: "string",
      description: "#SBATCH --time per task, e.g. 4:00:00 (default: the partition's)",
    },
    mem: {
      type: "string",
      description: "#SBATCH --mem per task, e.g. 8G (default: the partition's)",
    },
    cpus: { type: "string", description: "#SBATCH --cpus-per-task (default: Slurm's, 1)" },
    name: { type: "string", description: "job name (default distdebug-<config name>)" },
    cli: { type: "string", description: "the distdebug command on the nodes (default distdebug)" },
  },
  async run(args, io) {
    if (args.positionals.length > 0)
      throw usageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
    const configPath = requireString(args, "config");
    const config = await loadConfig({ files: [resolve(io.cwd, configPath)] });
    const text = (name: string) => optionalString(args, name);
    const number = (name: string) => optionalPositiveInt(args, name);
    const script = buildArrayScript({
      config,
      configPath,
      shards: parsePositiveInt(requireString(args, "shards"), "shards", 1),
      out: requireString(args, "out"),
      bugs: stringList(args, "bug"),
      ...defined({
        dataset: text("dataset"),
        runs: number("runs"),
        cacheDir: text("cache-dir"),
        parallelism: number("parallelism"),
        partition: text("partition"),
        time: text("time"),
        mem: text("mem"),
        cpus: number("cpus"),
        jobName: text("name"),
        cli: text("cli"),
      }),
    });
    io.stdout(script);
    return 0;
  },
});
