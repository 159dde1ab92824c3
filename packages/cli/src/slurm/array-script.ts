import { apiKeyEnvName } from "@distdebug/agents";
import type { RunConfig } from "@distdebug/schema";
import { usageError } from "../command.js";

/** Options of {@link buildArrayScript}; every default is stated. */
export interface ArrayScriptOptions {
  /** The run config (its name names the shard folders, its model the API key variable). */
  config: RunConfig;
  /** The config file as the tasks open it: relative paths are relative to the submit folder. */
  configPath: string;
  /** Number of shards, one array task each (`--array=1-N`). */
  shards: number;
  /** The folder that holds one results folder per shard, `<out>/<config name>.shard-<i>-of-<N>`. */
  out: string;
  /** Dataset folder; default: the CLI's bundled datasets. */
  dataset?: string;
  /** `--bug` patterns passed to every shard. */
  bugs?: readonly string[];
  /** Attempts per incident. Default: the config's `run.attempts`. */
  runs?: number;
  /** Repository and workspace cache of every task. Default: the CLI's (`~/.cache/distdebug`). */
  cacheDir?: string;
  /** Tasks at once (`--array=1-N%k`). Default: as many as Slurm schedules. */
  parallelism?: number;
  /** `#SBATCH --partition`. Default: the cluster's default partition. */
  partition?: string;
  /** `#SBATCH --time` (minutes, `hh:mm:ss`, `d-hh:mm:ss`...). Default: the partition's limit. */
  time?: string;
  /** `#SBATCH --mem` per task (`8G`, `16000M`). Default: the partition's default. */
  mem?: string;
  /** `#SBATCH --cpus-per-task`. Default: Slurm's (1). */
  cpus?: number;
  /** `#SBATCH --job-name`. Default `distdebug-<config name>`. */
  jobName?: string;
  /** The distdebug command on the compute nodes (a path or a name on PATH). Default `distdebug`. */
  cli?: string;
}

/**
 * Quotes a value for a POSIX shell: words of only letters, digits and `@%+=:,./_-` stay as
 * they are, anything else becomes one single-quoted word with each `'` written `'\''`.
 * @example
 * ```ts
 * shellQuote("configs/a.yaml"); // configs/a.yaml
 * shellQuote("it's $HOME"); // 'it'\''s $HOME'
 * ```
 */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * Values of `#SBATCH` lines: sbatch reads them itself (the shell never does), so they are
 * checked against what Slurm accepts instead of quoted.
 */
const directivePatterns = {
  "job-name": /^[A-Za-z0-9._-]{1,128}$/,
  partition: /^[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*$/,
  time: /^(\d+-)?\d+(:\d+){0,2}$|^(UNLIMITED|INFINITE)$/,
  mem: /^\d+[KMGT]?$/,
} as const;

function directive(name: keyof typeof directivePatterns, value: string): string {
  if (!directivePatterns[name].test(value))
    throw usageError(
      `--${name === "job-name" ? "name" : name}: ${JSON.stringify(value)} is not a value Slurm takes for --${name} (expected e.g. ${examples[name]})`,
    );
  return `#SBATCH --${name}=${value}`;
}

const examples: Record<keyof typeof directivePatterns, string> = {
  "job-name": "distdebug-baseline",
  partition: "gpu or cpu,long",
  time: "90, 4:00:00 or 1-12:00:00",
  mem: "8G or 16000M",
};

function directives(options: ArrayScriptOptions, jobName: string): string[] {
  const throttle = options.parallelism === undefined ? "" : `%${options.parallelism}`;
  return [
    directive("job-name", jobName),
    `#SBATCH --array=1-${options.shards}${throttle}`,
    "#SBATCH --requeue",
    "#SBATCH --export=ALL",
    "#SBATCH --open-mode=append",
    "#SBATCH --output=slurm-%x-%A_%a.out",
    ...(options.partition === undefined ? [] : [directive("partition", options.partition)]),
    ...(options.time === undefined ? [] : [directive("time", options.time)]),
    ...(options.mem === undefined ? [] : [directive("mem", options.mem)]),
    ...(options.cpus === undefined ? [] : [`#SBATCH --cpus-per-task=${options.cpus}`]),
  ];
}

function runCommand(options: ArrayScriptOptions): string {
  const words = [
    "run",
    "--config",
    options.configPath,
    "--shard-count",
    String(options.shards),
    "--results-dir",
    options.out,
    ...(options.dataset === undefined ? [] : ["--dataset", options.dataset]),
    ...(options.bugs ?? []).flatMap((bug) => ["--bug", bug]),
    ...(options.runs === undefined ? [] : ["--runs", String(options.runs)]),
    ...(options.cacheDir === undefined ? [] : ["--cache-dir", options.cacheDir]),
    "--json",
  ];
  return `exec ${[options.cli ?? "distdebug", ...words].map(shellQuote).join(" ")}`;
}

/** A check that the model's key variable came with the submitting environment: its name, never its value. */
function keyCheck(config: RunConfig): string[] {
  if (!config.model) return [];
  const name = apiKeyEnvName(config.model);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw usageError(
      `model.apiKeyEnv: ${JSON.stringify(name)} is not an environment variable name`,
    );
  const message = `distdebug: ${name} is not set; export it before sbatch (the tasks take the submitting user's environment)`;
  return [
    `# The model's API key comes from the submitting user's environment (--export=ALL), never from this file.`,
    `if [ -z "\${${name}:-}" ]; then`,
    `  echo ${shellQuote(message)} >&2`,
    "  exit 2",
    "fi",
  ];
}

/**
 * Builds an `sbatch` script that runs a benchmark as a Slurm job array, one task per shard:
 * task `i` of `--array=1-N` runs `distdebug run --shard-count N`, takes its shard from the
 * array (`SLURM_ARRAY_TASK_ID`, see `distdebug run --help`) and writes
 * `<out>/<config name>.shard-<i>-of-<N>`. Tasks run in the folder `sbatch` was called from,
 * take the API key from the submitting user's environment (the script names the variable and
 * never holds its value), and are requeued when their node fails (`--requeue`); a requeued
 * task resumes its shard folder: finished attempts are kept, interrupted ones rerun. Every
 * value that reaches the shell is single-quoted; `#SBATCH` values are checked instead.
 *
 * @throws DistDebugError `USAGE` for a directive value Slurm would not take.
 * @example
 * ```ts
 * const script = buildArrayScript({ config, configPath: "configs/baseline/default.yaml", shards: 8, out: "results/shards" });
 * ```
 */
export function buildArrayScript(options: ArrayScriptOptions): string {
  const name = options.config.name ?? "run";
  const jobName = options.jobName ?? `distdebug-${name}`.replace(/[^A-Za-z0-9._-]+/g, "-");
  const folders = `${shellQuote(options.out)}/${shellQuote(name)}.shard-*-of-${options.shards}`;
  const lines = [
    "#!/bin/bash",
    `# ${name}: ${options.shards} shards as a Slurm job array (printed by distdebug slurm script).`,
    "# Submit from the folder the paths below are relative to:  sbatch <this file>",
    "# Watch: squeue --me; logs in slurm-<job name>-<job id>_<task>.out (appended across requeues).",
    "# Requeue one task (it resumes its shard):  scontrol requeue <job id>_<task>",
    `# Merge and score when every task has ended:  distdebug merge ${folders} --out <folder>`,
    ...directives(options, jobName),
    "set -euo pipefail",
    'cd "$SLURM_SUBMIT_DIR"',
    ...keyCheck(options.config),
    runCommand(options),
    "",
  ];
  return lines.join("\n");
}
