import { resolve } from "node:path";
import { attemptPath } from "@distdebug/results";
import { serialize } from "@distdebug/schema";
import { verifySubmission } from "@distdebug/submission";
import { defineCommand, optionalString, parsePositiveInt, usageError } from "../command.js";
import { loadDatasetArg, MIRROR_OPTION, mirrorsFromArgs } from "../dataset-arg.js";
import {
  CACHE_DIR_OPTION,
  COUNT_CACHE_OPTION,
  cacheDirOf,
  countCacheOf,
} from "../render/cache-dir.js";

export default defineCommand({
  usage:
    "verify <archive> [--dataset dir] [--attempts N] [--cache-dir <dir>] [--mirror <folder | owner/name=<gitdir>>]... [--no-count-cache] [--skip-rescore]",
  description:
    "Verifies a submission archive made by distdebug package from the archive alone: every file's sha256 against manifest.json (a changed, missing or extra file is named), every diagnosis and trajectory against the sha256 in its attempt.json, completeness against the dataset (every scorable incident, --attempts or else run.attempts attempts each), unsafe entries (.., absolute, links, duplicates, aliases) refused, every file re-validated, the trajectories re-scanned for leaks, and every attempt rescored against the dataset's gold, reporting each packaged score the rescoring does not reproduce. --mirror reads the catalog's repositories from local mirrors instead of cloning them. Exits 1 on any problem or difference.",
  options: {
    dataset: {
      type: "string",
      description: "the benchmark dataset to rescore against (default: the one run.json names)",
    },
    attempts: {
      type: "string",
      description:
        "attempts per incident the benchmark requires, with --dataset (default: the archive's run.attempts, which its submitter chose)",
    },
    ...CACHE_DIR_OPTION,
    ...MIRROR_OPTION,
    ...COUNT_CACHE_OPTION,
    "skip-rescore": { type: "boolean", description: "check checksums and files only" },
  },
  async run(args, io) {
    const archive = args.positionals[0];
    if (!archive || args.positionals.length > 1) throw usageError("name one archive");
    const datasetDir = optionalString(args, "dataset");
    const attempts = optionalString(args, "attempts");
    const cacheDir = cacheDirOf(optionalString(args, "cache-dir"), io);
    const result = await verifySubmission({
      archive: resolve(io.cwd, archive),
      rescore: args.values["skip-rescore"] !== true,
      ...(datasetDir ? { dataset: await loadDatasetArg(datasetDir, io.cwd) } : {}),
      ...(attempts === undefined ? {} : { attempts: parsePositiveInt(attempts, "attempts", 1) }),
      cacheDir,
      mirrors: mirrorsFromArgs(args, io.cwd),
      countCache: countCacheOf(args),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    if (args.values.json) {
      const { manifest, ...rest } = result;
      io.stdout(serialize({ ...rest, name: manifest.name, counts: manifest.counts }));
      return result.ok ? 0 : 1;
    }
    for (const problem of result.checksums) {
      const detail =
        problem.problem === "checksum-mismatch"
          ? "changed since packaging (sha256 differs from manifest.json)"
          : problem.problem === "size-mismatch"
            ? `size ${problem.found} bytes, manifest says ${problem.expected}`
            : problem.problem === "missing"
              ? "listed in manifest.json but not in the archive"
              : "in the archive but not listed in manifest.json";
      io.stdout(`tampered  ${problem.path}: ${detail}\n`);
    }
    for (const line of result.problems) io.stdout(`refused   ${line}\n`);
    for (const line of result.invalid) io.stdout(`invalid   ${line}\n`);
    for (const difference of result.differences)
      io.stdout(`differs   ${difference.path}: ${difference.detail}\n`);
    for (const finding of result.findings)
      io.stdout(
        `leak      ${attemptPath(finding.incidentId, finding.attempt)} step ${finding.step} [${finding.kind}]: ${finding.rule}\n`,
      );
    const { manifest } = result;
    const what = `${manifest.name}: ${manifest.counts.incidents} incidents, ${manifest.counts.attempts} attempts, ${manifest.files.length} files`;
    if (result.ok)
      io.stdout(
        `ok        ${what}; checksums match${result.rescored ? " and rescoring reproduces every score" : " (not rescored)"}\n`,
      );
    else io.stderr(`verification failed: ${what}\n`);
    return result.ok ? 0 : 1;
  },
});
