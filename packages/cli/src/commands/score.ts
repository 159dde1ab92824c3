import { resolve } from "node:path";
import { formatLeaderboard } from "@distdebug/report";
import { scoreResults } from "@distdebug/runner";
import { serialize } from "@distdebug/schema";
import { DEFAULT_SEED } from "@distdebug/stats";
import { checkResultsFolder } from "@distdebug/submission";
import {
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
import { gateFailures, parseMetricFloors } from "../score-gates.js";

function parseSeed(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 0xffff_ffff)
    throw usageError(
      `--seed: expected a whole number from 0 to 4294967295, found ${JSON.stringify(text)}`,
    );
  return value;
}

export default defineCommand({
  usage:
    "score <results dir> [--attempts N] [--seed N] [--dataset dir] [--rescore] [--require-complete] [--fail-under metric=points]... [--cache-dir <dir>] [--mirror <folder | owner/name=<gitdir>>]... [--no-count-cache]",
  description:
    "Scores every attempt of a results folder from its files against the gold on the pristine buggy tree (read from the repository's object store, no workspace copy), rewrites diagnosis_scores.json where it differs, writes summary.json and prints the leaderboard row (block coverage with 95% CI, block precision, file coverage, localization gap, tokens/run, cost/run, failed attempts). A diagnosis_scores.json made from the same inputs (diagnosis and trajectory bytes, gold, incident, evaluator version and parameters: its inputHash) is reused as it is; --rescore scores every attempt again. Pure: the same inputs give the same bytes. With --dataset, first refuses (exit 1, one line per problem) a folder that lacks an incident of the dataset, has other than run.attempts attempts per incident, or whose diagnoses or trajectories differ from the sha256 in attempt.json. For CI: --require-complete exits 1 while infra errors, interrupted or missing attempts remain; --fail-under exits 1 when a metric's mean is under a floor in points (blockCoverage=40 fails below a mean of 0.40).",
  options: {
    attempts: {
      type: "string",
      description: "attempts per incident to count (default: the run's)",
    },
    seed: {
      type: "string",
      description: `bootstrap seed, a whole number >= 0 (default ${DEFAULT_SEED})`,
    },
    ...CACHE_DIR_OPTION,
    ...COUNT_CACHE_OPTION,
    dataset: {
      type: "string",
      description:
        "the benchmark dataset: rescore with its gold and refuse an incomplete or changed folder",
    },
    ...MIRROR_OPTION,
    rescore: {
      type: "boolean",
      description:
        "score every attempt again, also those whose diagnosis_scores.json was made from the same inputs",
    },
    "require-complete": {
      type: "boolean",
      description: "exit 1 while infra errors, interrupted or missing attempts remain",
    },
    "fail-under": {
      type: "string",
      multiple: true,
      description:
        "<metric>=<points>, repeatable: exit 1 when the metric's mean (blockCoverage, blockPrecision, fileCoverage, linePrecision) is under the points (0-100)",
    },
  },
  async run(args, io) {
    const dir = args.positionals[0];
    if (!dir || args.positionals.length > 1) throw usageError("name one results folder");
    const attemptsText = optionalString(args, "attempts");
    const attempts =
      attemptsText === undefined ? undefined : parsePositiveInt(attemptsText, "attempts", 1);
    const seed = optionalString(args, "seed");
    const floors = parseMetricFloors(stringList(args, "fail-under"));
    const requireComplete = args.values["require-complete"] === true;
    const cacheDir = cacheDirOf(optionalString(args, "cache-dir"), io);
    const datasetDir = optionalString(args, "dataset");
    const outDir = resolve(io.cwd, dir);
    const dataset = datasetDir ? await loadDatasetArg(datasetDir, io.cwd) : undefined;
    if (dataset) {
      const problems = await checkResultsFolder(outDir, dataset, attempts);
      for (const problem of problems) io.stderr(`refused  ${problem}\n`);
      if (problems.length > 0) {
        io.stderr(`not scored: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n`);
        return 1;
      }
    }
    const result = await scoreResults({
      outDir,
      ...(dataset ? { dataset } : {}),
      ...(attempts === undefined ? {} : { attempts }),
      ...(seed === undefined ? {} : { seed: parseSeed(seed) }),
      cacheDir,
      countCache: countCacheOf(args),
      mirrors: mirrorsFromArgs(args, io.cwd),
      rescore: args.values.rescore === true,
    });
    const failures = gateFailures(result.summary, { requireComplete, floors });
    if (args.values.json) {
      io.stdout(
        serialize({
          summary: result.summary,
          changed: result.changed,
          reused: result.reused,
          rescored: result.rescored,
          stale: result.stale,
          invalid: result.invalid,
          unscored: result.unscored,
          ...(requireComplete || floors.length > 0 ? { gateFailures: failures } : {}),
        }),
      );
      return failures.length > 0 ? 1 : 0;
    }
    io.stdout(formatLeaderboard([result.summary], { format: "text" }));
    if (result.stale.length > 0)
      io.stderr(
        `${result.stale.length} attempts belong to another config or dataset and were not counted; run distdebug run again to redo them\n`,
      );
    if (result.unscored.length > 0)
      io.stderr(
        `not scored (no gold labels): ${result.unscored.join(", ")}; their diagnoses are in the results folder\n`,
      );
    for (const problem of result.invalid) io.stderr(`not counted  ${problem}\n`);
    io.stderr(
      `${result.rescored} attempts scored, ${result.reused} reused (inputs unchanged)${result.changed > 0 ? `; ${result.changed} diagnosis_scores.json files were rewritten` : ""}\n`,
    );
    for (const failure of failures) io.stderr(`failed  ${failure}\n`);
    return failures.length > 0 ? 1 : 0;
  },
});
