import { join, resolve } from "node:path";
import {
  bundledDatasets,
  type Dataset,
  globToRegExp,
  loadDataset,
  selectIncidents,
} from "@distdebug/dataset";
import { runBenchmark, type Shard } from "@distdebug/runner";
import {
  applyOverrides,
  DistDebugError,
  didYouMean,
  loadConfig,
  parseRunConfig,
  type RunConfig,
} from "@distdebug/schema";
import {
  type CommandArgs,
  defineCommand,
  optionalString,
  parsePositiveInt,
  stringList,
  usageError,
} from "../command.js";
import { loadDatasetArg, MIRROR_OPTION, mirrorsFromArgs } from "../dataset-arg.js";
import {
  CACHE_DIR_OPTION,
  COUNT_CACHE_OPTION,
  cacheDirOf,
  countCacheOf,
} from "../render/cache-dir.js";
import { createRunProgress } from "../render/run-progress.js";
import { shardFromArgs, shardOptions, shardOutName } from "../shard-options.js";

async function chooseDataset(
  datasetDir: string | undefined,
  bugs: string[],
  cwd: string,
): Promise<Dataset> {
  if (datasetDir) return loadDatasetArg(datasetDir, cwd);
  const bundled = bundledDatasets();
  if (bundled.length === 0) throw usageError("no bundled dataset was found; pass --dataset <dir>");
  if (bugs.length === 0) {
    const example = bundled.find((entry) => entry.name === "example");
    if (!example) throw usageError("the example dataset is missing; pass --dataset <dir>");
    return loadDataset(example.dir);
  }
  // The first bundled dataset in which every --bug matches an incident.
  const patterns = bugs.map(globToRegExp);
  for (const entry of bundled) {
    const dataset = await loadDataset(entry.dir);
    if (
      patterns.every((pattern) => dataset.incidents.some((incident) => pattern.test(incident.id)))
    )
      return dataset;
  }
  const ids: string[] = [];
  for (const entry of bundled)
    ids.push(...(await loadDataset(entry.dir)).incidents.map((i) => i.id));
  throw new DistDebugError({
    code: "INVALID_ARGUMENT",
    message: `no bundled dataset has an incident matching ${unmatched(bugs, ids).join(", ")}; pass --dataset <dir>`,
  });
}

/** Each `--bug` that matches none of `ids`, with a did-you-mean for a mistyped id. */
function unmatched(bugs: readonly string[], ids: readonly string[]): string[] {
  return bugs
    .filter((bug) => !ids.some((id) => globToRegExp(bug).test(id)))
    .map((bug) => `${bug}${/[*?]/.test(bug) ? "" : didYouMean(bug, ids)}`);
}

async function chooseConfig(
  files: string[],
  agent: string | undefined,
  overrides: string[],
  cwd: string,
): Promise<RunConfig> {
  if (files.length > 0)
    return asConfigError(() =>
      loadConfig({
        files: files.map((file) => resolve(cwd, file)),
        overrides: agent ? [...overrides, `agent.type=${agent}`] : overrides,
      }),
    );
  const type = agent ?? "baseline";
  if (!["baseline", "mini", "command"].includes(type))
    throw usageError(`--agent: expected baseline, mini or command, found ${JSON.stringify(type)}`);
  // --set applies to the built-in config too (without --config it names only the agent).
  const given = [
    agent === undefined ? "the built-in baseline config" : `--agent ${agent}`,
    ...overrides.map((override) => `--set ${override}`),
  ];
  return asConfigError(async () =>
    parseRunConfig(applyOverrides({ name: type, agent: { type } }, overrides), {
      source: given.join(" + "),
    }),
  );
}

/** A config that does not validate is `INVALID_CONFIG` (exit 2, before any attempt). */
async function asConfigError(load: () => Promise<RunConfig>): Promise<RunConfig> {
  try {
    return await load();
  } catch (error) {
    if (!DistDebugError.isInstance(error) || error.code !== "INVALID_FILE") throw error;
    throw new DistDebugError({
      code: "INVALID_CONFIG",
      message: error.message,
      data: error.data,
      cause: error,
    });
  }
}

/** `--out`, or the default `<results-dir>/<config name>[.shard-<i>-of-<n>]` (one folder per shard). */
function outDirOf(args: CommandArgs, config: RunConfig, shard: Shard | undefined): string {
  const out = optionalString(args, "out");
  const resultsDir = optionalString(args, "results-dir");
  if (out !== undefined && resultsDir !== undefined)
    throw usageError("--out and --results-dir exclude each other: --out names the folder itself");
  if (out !== undefined) return out;
  return join(resultsDir ?? "results", shardOutName(config.name ?? "run", shard));
}

export default defineCommand({
  usage:
    "run [--config <file>]... [--agent baseline|mini|command] [--dataset <dir>] [--bug <id|glob>]... [--runs N] [--concurrency N] [--set key.path=value]... [--out <dir>] [--cache-dir <dir>] [--mirror <folder | owner/name=<gitdir>>]... [--no-count-cache] [--redo] [--rerun-infra] [--shard i/n] [--unsafe-no-sandbox] [--json]",
  description:
    "Runs an agent on incidents: an anonymized workspace per attempt, the leakage check, the sandbox, the agent, and scoring. Finished attempts are reused (resume is the default); attempts that ended infra-error (a harness fault) are kept and the run exits 1 until they are rerun with --rerun-infra; Ctrl-C stops starting attempts and ends running ones as interrupted. Without --dataset, --bug looks the id up in the bundled datasets (the example dataset, then the real-incident catalog); --dataset takes a folder or a bundled dataset's name (example, catalog); without --bug the whole offline example dataset runs. --mirror reads the catalog's repositories from local mirrors instead of cloning them.",
  options: {
    config: {
      type: "string",
      multiple: true,
      description: "run config YAML (several merge, later wins)",
    },
    agent: { type: "string", description: "agent type, overriding the config (default baseline)" },
    dataset: { type: "string", description: "dataset folder (default: the bundled ones)" },
    bug: { type: "string", multiple: true, description: "incident id or glob (repeatable)" },
    runs: { type: "string", description: "attempts per incident (default: config run.attempts)" },
    concurrency: {
      type: "string",
      description: "attempts at once (default: config run.concurrency)",
    },
    out: { type: "string", description: "results folder (default <results-dir>/<config name>)" },
    "results-dir": {
      type: "string",
      description:
        "folder of the default results folder: <results-dir>/<config name>[.shard-<i>-of-<n>] (default results)",
    },
    redo: { type: "boolean", description: "redo finished attempts too" },
    "rerun-infra": {
      type: "boolean",
      description: "rerun attempts that ended infra-error (kept by default)",
    },
    "unsafe-no-sandbox": {
      type: "boolean",
      description:
        "development only: accept a config with sandbox backend no-sandbox (the agent runs on this host as you); package and verify refuse its attempts",
    },
    set: {
      type: "string",
      multiple: true,
      description: "config override key.path=value (repeatable)",
    },
    ...CACHE_DIR_OPTION,
    ...COUNT_CACHE_OPTION,
    ...MIRROR_OPTION,
    ...shardOptions,
  },
  async run(args, io) {
    const shard = shardFromArgs(args, io.env);
    const bugs = stringList(args, "bug");
    const config = await chooseConfig(
      stringList(args, "config"),
      optionalString(args, "agent"),
      stringList(args, "set"),
      io.cwd,
    );
    const dataset = await chooseDataset(optionalString(args, "dataset"), bugs, io.cwd);
    const missing = unmatched(
      bugs,
      dataset.incidents.map((incident) => incident.id),
    );
    if (missing.length > 0)
      throw usageError(`no incident of ${dataset.dir} matches ${missing.join(", ")}`);
    const incidents =
      bugs.length > 0 ? selectIncidents(dataset, { ids: bugs }) : [...dataset.incidents];
    if (incidents.length === 0)
      throw usageError(`no incident of ${dataset.dir} matches ${bugs.join(", ")}`);
    const outDir = resolve(io.cwd, outDirOf(args, config, shard));
    const runs = optionalString(args, "runs");
    const concurrency = optionalString(args, "concurrency");
    const cacheDir = cacheDirOf(optionalString(args, "cache-dir"), io);
    const progress = createRunProgress(io, args.values.json ? "json" : io.isTTY ? "tty" : "plain");
    const result = await runBenchmark({
      config,
      dataset,
      incidents,
      outDir,
      ...(runs === undefined ? {} : { attempts: parsePositiveInt(runs, "runs", 1) }),
      ...(concurrency === undefined
        ? {}
        : { concurrency: parsePositiveInt(concurrency, "concurrency", 1) }),
      cacheDir,
      countCache: countCacheOf(args),
      mirrors: mirrorsFromArgs(args, io.cwd),
      redo: Boolean(args.values.redo),
      ...(shard ? { shard } : {}),
      rerunInfraErrors: Boolean(args.values["rerun-infra"]),
      allowNoSandbox: Boolean(args.values["unsafe-no-sandbox"]),
      env: io.env,
      ...(io.signal ? { signal: io.signal } : {}),
      onEvent: progress.onEvent,
    }).finally(progress.stop);
    if (result.interrupted) {
      io.stderr(
        `interrupted: finished attempts are kept in ${outDir}; run the same command again to resume\n`,
      );
      return 130;
    }
    const infra = result.attempts.filter((attempt) => attempt.status === "infra-error").length;
    if (!args.values.json) {
      io.stderr(`${result.ran} attempts run, ${result.reused} reused; results in ${outDir}\n`);
      if (infra > 0)
        io.stderr(
          `${infra} attempts ended infra-error (a harness fault, not the agent's): the results are incomplete; rerun them with --rerun-infra\n`,
        );
      io.stderr(`next: distdebug score ${outDir}\n`);
    }
    return infra > 0 ? 1 : 0;
  },
});
