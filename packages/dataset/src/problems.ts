import { DistDebugError } from "@distdebug/schema";

/** One problem found in a dataset: the file (relative to the dataset folder), a JSON path, what is wrong. */
export interface DatasetProblem {
  /** POSIX path relative to the dataset folder, for example `zklite-142/gold.json`. */
  file: string;
  /** JSON path inside the file, for example `$.blocks[0].endLine`; absent for whole-file problems. */
  path?: string;
  /** What was expected and what was found. */
  message: string;
}

/** Structured data of an `INVALID_DATASET` error. */
export interface InvalidDatasetData {
  dir: string;
  problems: DatasetProblem[];
}

/** Renders one problem as a line: `zklite-142/gold.json $.blocks[0].endLine: ...`. */
export function formatProblem(problem: DatasetProblem): string {
  return `${problem.file}${problem.path ? ` ${problem.path}` : ""}: ${problem.message}`;
}

/** The `INVALID_DATASET` error listing every problem. */
export function invalidDataset(
  dir: string,
  problems: DatasetProblem[],
): DistDebugError<InvalidDatasetData> {
  return new DistDebugError<InvalidDatasetData>({
    code: "INVALID_DATASET",
    message: `${dir}: not a valid dataset; ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.map((problem) => `  - ${formatProblem(problem)}`).join("\n")}`,
    data: { dir, problems },
  });
}
