import { resolve } from "node:path";
import { checkDataset, type DatasetCounts, formatProblem } from "@distdebug/dataset";
import { defineCommand, usageError } from "../command.js";

function countLine(record: Record<string, number>): string {
  return Object.entries(record)
    .map(([name, count]) => `${name} ${count}`)
    .join(", ");
}

/** The human summary of a dataset's counts, one fact a line. */
export function renderCounts(counts: DatasetCounts): string[] {
  const languages = Object.entries(counts.languages).filter(([, count]) => count > 0);
  const missing = Object.entries(counts.languages)
    .filter(([, count]) => count === 0)
    .map(([name]) => name);
  return [
    `incidents        ${counts.incidents} (${counts.scorable} scorable, ${counts.remote} with a remote repository)`,
    `languages        ${countLine(Object.fromEntries(languages))}${missing.length > 0 ? ` (none in ${missing.join(", ")})` : ""}`,
    `categories       ${countLine(Object.fromEntries(Object.entries(counts.categories).filter(([, count]) => count > 0)))}`,
    `multi-block      ${counts.multiBlock} incidents with two or more gold blocks`,
    `clues            ${counts.reportWithoutCausalMethod} reports do not name the causal method; ${counts.withoutUsableStackTrace} without a usable in-project stack trace`,
  ];
}

export default defineCommand({
  usage: "dataset check <dir>",
  description:
    "Validates a dataset folder (dataset.json, every incident.json, report, artifact and gold.json, and repositories stored as data) and prints its counts. Lists every problem at once; exits 1 when there is any.",
  options: {},
  async run(args, io) {
    if (args.positionals.length !== 1) throw usageError("name one dataset folder");
    const dir = args.positionals[0]!;
    const check = await checkDataset(resolve(io.cwd, dir));
    if (args.values.json) {
      io.stdout(
        `${JSON.stringify(
          {
            ok: check.ok,
            dir,
            ...(check.dataset
              ? {
                  name: check.dataset.index.name,
                  version: check.dataset.index.version,
                  digest: check.dataset.digest,
                }
              : {}),
            counts: check.counts,
            problems: check.problems,
            notes: check.notes,
          },
          null,
          2,
        )}\n`,
      );
      return check.ok ? 0 : 1;
    }
    if (!check.ok) {
      for (const problem of check.problems) io.stdout(`error  ${formatProblem(problem)}\n`);
      io.stdout(
        `${dir}: ${check.problems.length} problem${check.problems.length === 1 ? "" : "s"}\n`,
      );
      return 1;
    }
    const dataset = check.dataset!;
    io.stdout(`ok     ${dir}: ${dataset.index.name} ${dataset.index.version}\n`);
    for (const line of renderCounts(check.counts)) io.stdout(`${line}\n`);
    io.stdout(`digest           ${dataset.digest}\n`);
    for (const note of check.notes) io.stdout(`note   ${note}\n`);
    return 0;
  },
});
