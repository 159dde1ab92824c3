import {
  DEFAULT_EVALUATOR_PARAMETERS,
  type EvaluatorParameters,
  evaluatorParameters,
} from "@distdebug/evaluator";
import { type CommandArgs, type CommandOption, optionalString, usageError } from "./command.js";

/** Each evaluator parameter's command-line option (kebab case of its name). */
const NAMES: Record<keyof EvaluatorParameters, string> = {
  coverageSpanLimit: "coverage-span-limit",
  coverageSpanCount: "coverage-span-count",
  coverageRowBudget: "coverage-row-budget",
  coverageRowFloor: "coverage-row-floor",
  coverageRepoShare: "coverage-repo-share",
  coverageFileFloor: "coverage-file-floor",
  maxDiagnosisBlocks: "max-diagnosis-blocks",
};

const d = DEFAULT_EVALUATOR_PARAMETERS;
const HELP: Record<keyof EvaluatorParameters, string> = {
  coverageSpanLimit: `a span of more significant rows earns no coverage (default ${d.coverageSpanLimit})`,
  coverageSpanCount: `only the first N spans can earn coverage (default ${d.coverageSpanCount})`,
  coverageRowBudget: `the coverage row budget is at most this (default ${d.coverageRowBudget})`,
  coverageRowFloor: `the coverage row budget is at least this (default ${d.coverageRowFloor})`,
  coverageRepoShare: `otherwise this share of the repository's non-blank source lines; the file budget is this share of its source files (default ${d.coverageRepoShare})`,
  coverageFileFloor: `the file budget (files that earn file coverage) is at least this (default ${d.coverageFileFloor})`,
  maxDiagnosisBlocks: `a diagnosis with more blocks is invalid (default ${d.maxDiagnosisBlocks})`,
};

/** The options of the scoring parameters, for every command that scores (`evaluate`, later `run` and `score`). */
export const SCORING_OPTIONS: Record<string, CommandOption> = Object.fromEntries(
  (Object.keys(NAMES) as (keyof EvaluatorParameters)[]).map((name) => [
    NAMES[name],
    { type: "string", description: HELP[name] },
  ]),
);

/** The `--max-diagnosis-blocks` option alone (for `validate`). */
export const MAX_BLOCKS_OPTION: Record<string, CommandOption> = {
  [NAMES.maxDiagnosisBlocks]: SCORING_OPTIONS[NAMES.maxDiagnosisBlocks] as CommandOption,
};

/**
 * The scoring parameters given on the command line (the others are left to the defaults),
 * each checked; a bad value is a usage error naming its option.
 */
export function scoringParameters(args: CommandArgs): Partial<EvaluatorParameters> {
  const given: Partial<EvaluatorParameters> = {};
  for (const name of Object.keys(NAMES) as (keyof EvaluatorParameters)[]) {
    const text = optionalString(args, NAMES[name]);
    if (text === undefined) continue;
    const value = Number(text);
    try {
      evaluatorParameters({ [name]: value });
    } catch {
      throw usageError(
        `--${NAMES[name]}: expected ${name === "coverageRepoShare" ? "a share in (0, 1]" : "a whole number >= 1"}, found ${JSON.stringify(text)}`,
      );
    }
    given[name] = value;
  }
  return given;
}
