import { DistDebugError, type ScoreParameters } from "@distdebug/schema";
import { DEFAULT_EVALUATOR_PARAMETERS } from "./version.js";

/** The evaluator's parameters (recorded in every `diagnosis_scores.json`). */
export type EvaluatorParameters = ScoreParameters;

function invalid(name: string, value: number, expected: string): never {
  throw new DistDebugError({
    code: "INVALID_ARGUMENT",
    message: `${name}: expected ${expected}, found ${value}`,
    data: { name, value },
  });
}

/**
 * The parameters with defaults filled in, each checked: whole numbers >= 1, the share in
 * (0, 1]. Throws `INVALID_ARGUMENT` naming the first bad one.
 *
 * @example
 * ```ts
 * evaluatorParameters({ coverageRowBudget: 200 }).coverageRowFloor; // 20
 * ```
 */
export function evaluatorParameters(
  options: Partial<EvaluatorParameters> = {},
): EvaluatorParameters {
  const parameters = { ...DEFAULT_EVALUATOR_PARAMETERS };
  for (const name of Object.keys(parameters) as (keyof EvaluatorParameters)[]) {
    const value = options[name];
    if (value === undefined) continue;
    if (name === "coverageRepoShare") {
      if (!(typeof value === "number" && value > 0 && value <= 1))
        invalid(name, value, "a share in (0, 1]");
    } else if (!Number.isInteger(value) || value < 1) invalid(name, value, "a whole number >= 1");
    parameters[name] = value;
  }
  return parameters;
}

/**
 * The row budget B of coverage-earning spans in a repository of `repositoryRows` rows (R):
 * `min(coverageRowBudget, max(coverageRowFloor, floor(coverageRepoShare * R)))`.
 *
 * @example
 * ```ts
 * coverageBudget(evaluatorParameters(), 3_000); // 60
 * ```
 */
export function coverageBudget(parameters: EvaluatorParameters, repositoryRows: number): number {
  // The epsilon undoes binary rounding (0.03 * 100 must give 3, not 2.9999...).
  const share = Math.floor(parameters.coverageRepoShare * repositoryRows + 1e-9);
  return Math.min(parameters.coverageRowBudget, Math.max(parameters.coverageRowFloor, share));
}

/**
 * The file budget Bf of a repository of `repositoryFiles` source files (F): at most this many
 * distinct files earn file credit, `max(coverageFileFloor, ceil(coverageRepoShare * F))`.
 *
 * @example
 * ```ts
 * fileBudget(evaluatorParameters(), 1_000); // 20
 * ```
 */
export function fileBudget(parameters: EvaluatorParameters, repositoryFiles: number): number {
  // The epsilon undoes binary rounding (0.02 * 150 must give 3, not 3.0000000000000004).
  const share = Math.ceil(parameters.coverageRepoShare * repositoryFiles - 1e-9);
  return Math.max(parameters.coverageFileFloor, share);
}
