import { resolve } from "node:path";
import {
  bundledDatasets,
  type Dataset,
  globToRegExp,
  loadDataset,
  selectIncidents,
} from "@distdebug/dataset";
import { runBenchmark } from "@distdebug/runner";
import {
  applyOverrides,
  DistDebugError,
  loadConfig,
  parseRunConfig,
  type RunConfig,
} from "@distdebug/schema";
import {
  defineCommand,
  optionalString,
  parsePositiveInt,
  stringList,
  UsageError,
} from "../command.js";
import { loadDatasetArg, MIRROR_OPTION, mirrorsFromArgs } from "../dataset-arg.js";
import { cacheDirOf } from "../render/cache-dir.js";
import { createRunProgress } from "../render/run-progress.js";
import { shardFromArgs, shardOptions, shardOutName } from "../shard-options.js";
import { didYouMean } from "../suggest.js";

async function chooseDataset(
  datasetDir: string | undefined,
  bugs: string[],
  cwd: string,
): Promise<Dataset> {
  if (datasetDir) return loadDatasetArg(datasetDir, cwd);
  const bundled = bundledDatasets();
  if (bundled.length === 0)
    throw new UsageError("no bundled dataset was found; pass --dataset <dir>");
  if (bugs.length === 0) {
    const example = bundled.find((entry) => entry.name === "example");
    if (!example) throw new UsageError("the example dataset is missing; pass --dataset <dir>");
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
  if (files.length > 0) {
    const config = await loadConfig({
      files: files.map((file) => resolve(cwd, file)),
      overrides: agent ? [...overrides, `agent.type=${agent}`] : overrides,
    });
    return config;
  }
  const type = agent ?? "baseline";
  if (!["baseline", "mini", "command"].includes(type))
    throw new UsageError(
      `--agent: expected baseline, mini or command, found ${JSON.stringify(type)}`,
    );
  // --set applies to the built-in config too (without --config it names only the agent).
  return parseRunConfig(applyOverrides({ name: type, agent: { type } }, overrides), {
    source: overrides.length > 0 ? "--agent and --set" : "--agent",
  });
}

export default defineCommand({
  usage:
    "run [--config <file>]... [--agent baseline|mini|command] [--dataset <dir>] [--bug <id|glob>]... [--runs N] [--concurrency N] [--out <dir>] [--redo] [--rerun-infra] [--shard i/n] [--mirror <folder | owner/name=<gitdir>>]... [--unsafe-no-sandbox]",
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
    out: { type: "string", description: "results folder (default results/<config name>)" },
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
    "cache-dir": {
      type: "string",
      description: "repository and workspace cache (default ~/.cache/distdebug)",
    },
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
      throw new UsageError(`no incident of ${dataset.dir} matches ${missing.join(", ")}`);
    const incidents =
      bugs.length > 0 ? selectIncidents(dataset, { ids: bugs }) : [...dataset.incidents];
    const outDir = resolve(
      io.cwd,
      optionalString(args, "out") ?? `results/${shardOutName(config.name ?? "run", shard)}`,
    );
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
