import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Dataset } from "@distdebug/dataset";
import { attemptPath, listAttemptFolders, readRunInfo } from "@distdebug/results";
import { expectedSubmission, type SubmissionFiles, submissionProblems } from "./consistency.js";

/** The attempt files of a results folder by relative path; links and non-files are problems. */
async function readAttemptFiles(
  dir: string,
): Promise<{ files: Map<string, Uint8Array>; problems: string[] }> {
  const files = new Map<string, Uint8Array>();
  const problems: string[] = [];
  for (const folder of await listAttemptFolders(dir)) {
    for (const name of (await readdir(folder.dir)).sort()) {
      const path = attemptPath(folder.incidentId, folder.attempt, name);
      const info = await lstat(join(folder.dir, name));
      if (info.isFile()) files.set(path, await readFile(join(folder.dir, name)));
      else if (info.isSymbolicLink()) problems.push(`${path}: a symbolic link, not a file`);
    }
  }
  return { files, problems };
}

/**
 * Checks that a results folder is a complete, untouched run of `dataset`: every scorable
 * incident present with `requiredAttempts` attempts (default: the run config's
 * `run.attempts`), and every diagnosis and trajectory matching the sha256 its `attempt.json`
 * recorded. One line per problem.
 *
 * @example
 * ```ts
 * const problems = await checkResultsFolder("results/baseline", dataset);
 * ```
 */
export async function checkResultsFolder(
  dir: string,
  dataset: Dataset,
  requiredAttempts?: number,
): Promise<string[]> {
  const run = (await readRunInfo(dir, { required: true })).value;
  const { files, problems } = await readAttemptFiles(dir);
  return [
    ...problems,
    ...submissionProblems(
      files as SubmissionFiles,
      expectedSubmission(dataset, run, requiredAttempts),
    ),
  ];
}
