import { resolve } from "node:path";
import { attemptPath } from "@distdebug/results";
import { serialize } from "@distdebug/schema";
import { packageResults } from "@distdebug/submission";
import { defineCommand, optionalString, parsePositiveInt, usageError } from "../command.js";
import { loadDatasetArg } from "../dataset-arg.js";

export default defineCommand({
  usage: "package <results dir> [--out submission.tar.gz]",
  description:
    "Packages a scored results folder as a submission archive: checks that every incident has its attempts with attempt.json, trajectory.json and diagnosis.json, re-validates every file, scans the trajectories for leaks (git history such as git log --all, network tools, reads outside /workspace, /task, /output and /tmp), and writes manifest.json (model, harness, settings, token use and cost, counts, sha256 of every file) with the files into a .tar.gz. Exits 1 and writes nothing when something is missing or a leak is found.",
  options: {
    out: {
      type: "string",
      description:
        "archive to write (default: <run name>.submission.tar.gz beside the results folder)",
    },
    attempts: {
      type: "string",
      description: "attempts each incident must have (default: the run's)",
    },
    dataset: {
      type: "string",
      description: "require every incident of this dataset (default: the incident folders present)",
    },
    harness: { type: "string", description: "harness as name@version for the manifest" },
    "allow-leaks": {
      type: "boolean",
      description: "write the archive despite leak findings (they are listed in the manifest)",
    },
  },
  async run(args, io) {
    const dir = args.positionals[0];
    if (!dir || args.positionals.length > 1) throw usageError("name one results folder");
    const out = optionalString(args, "out");
    const attempts = optionalString(args, "attempts");
    const datasetDir = optionalString(args, "dataset");
    const harnessText = optionalString(args, "harness");
    let harness: { name: string; version: string } | undefined;
    if (harnessText !== undefined) {
      const match = /^(.+)@([^@]+)$/.exec(harnessText);
      if (!match)
        throw usageError(`--harness: expected name@version, found ${JSON.stringify(harnessText)}`);
      harness = { name: match[1]!, version: match[2]! };
    }
    const incidents = datasetDir
      ? (await loadDatasetArg(datasetDir, io.cwd)).incidents
          .filter((incident) => incident.scorable)
          .map((incident) => incident.id)
      : undefined;
    const result = await packageResults({
      resultsDir: resolve(io.cwd, dir),
      ...(out === undefined ? {} : { outFile: resolve(io.cwd, out) }),
      ...(attempts === undefined ? {} : { attempts: parsePositiveInt(attempts, "attempts", 1) }),
      ...(incidents ? { incidents } : {}),
      ...(harness ? { harness } : {}),
      allowLeaks: args.values["allow-leaks"] === true,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    if (args.values.json) {
      io.stdout(
        serialize({
          ok: result.ok,
          archive: result.archive ?? null,
          problems: result.problems,
          findings: result.findings,
          ...(result.manifest
            ? { counts: result.manifest.counts, usage: result.manifest.usage }
            : {}),
        }),
      );
      return result.ok ? 0 : 1;
    }
    for (const problem of result.problems) io.stdout(`error  ${problem}\n`);
    for (const finding of result.findings)
      io.stdout(
        `leak   ${attemptPath(finding.incidentId, finding.attempt)} step ${finding.step} [${finding.kind}]: ${finding.rule}\n         $ ${finding.command.split("\n")[0]}\n`,
      );
    if (!result.ok) {
      io.stderr(
        result.problems.length > 0
          ? `not packaged: ${result.problems.length} problem${result.problems.length === 1 ? "" : "s"}\n`
          : `not packaged: ${result.findings.length} leak finding${result.findings.length === 1 ? "" : "s"}; rerun those attempts, or pass --allow-leaks to submit them for review\n`,
      );
      return 1;
    }
    const manifest = result.manifest!;
    io.stdout(
      `packaged ${manifest.counts.incidents} incidents, ${manifest.counts.attempts} attempts (${manifest.files.length + 1} files) into ${result.archive}\n`,
    );
    return 0;
  },
});
