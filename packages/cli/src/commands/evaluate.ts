import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  coverageBudget,
  createEvaluator,
  directoryReader,
  listDirectoryFiles,
} from "@distdebug/evaluator";
import {
  type DiagnosisScores,
  DistDebugError,
  parseGold,
  readFileChecked,
  serialize,
  writeFileAtomic,
} from "@distdebug/schema";
import { defineCommand, optionalString, requireString } from "../command.js";
import { SCORING_OPTIONS, scoringParameters } from "../scoring-options.js";

/** Checks that a `--source` folder exists. */
export async function requireDirectory(path: string, option: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory())
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `--${option} ${path}: ${info ? "not a folder" : "no such folder"}; expected the source tree at the buggy revision`,
      data: { path, option },
    });
}

export default defineCommand({
  usage:
    "evaluate --gold <gold.json> --diagnosis <diagnosis.json> --source <dir> [--out <file>] [scoring options]",
  description:
    "Scores a diagnosis against the gold blocks on the source tree at the buggy revision and prints diagnosis_scores JSON (--out writes it atomically and prints a summary). A diagnosis that `validate` rejects (with the same --max-diagnosis-blocks) scores 0 with valid: false. The coverage row budget follows the size of the source tree. Stops on SIGINT/SIGTERM with exit 130.",
  options: {
    gold: { type: "string", description: "gold.json of the incident" },
    diagnosis: { type: "string", description: "diagnosis.json to score" },
    source: { type: "string", description: "source tree at the buggy revision" },
    out: { type: "string", description: "write diagnosis_scores.json here" },
    ...SCORING_OPTIONS,
  },
  async run(args, io) {
    const goldFile = requireString(args, "gold");
    const diagnosisFile = requireString(args, "diagnosis");
    const source = resolve(io.cwd, requireString(args, "source"));
    const out = optionalString(args, "out");
    const parameters = scoringParameters(args);
    await requireDirectory(source, "source");
    const gold = parseGold(await readFileChecked(resolve(io.cwd, goldFile)), { source: goldFile });
    const diagnosisBytes = await readFileChecked(resolve(io.cwd, diagnosisFile));
    const evaluator = createEvaluator({
      readFile: directoryReader(source),
      listFiles: () => listDirectoryFiles(source),
      ...parameters,
    });
    let scores: DiagnosisScores;
    try {
      const size = await evaluator.repositorySize(gold, io.signal);
      if (!args.values.json)
        io.stderr(
          `repository: ${size.rows} non-blank source lines in ${size.files} files; coverage row budget ${coverageBudget(evaluator.parameters, size.rows)}\n`,
        );
      scores = await evaluator.score({
        diagnosis: diagnosisBytes,
        gold,
        ...(io.signal ? { signal: io.signal } : {}),
      });
    } catch (error) {
      if (!(DistDebugError.isInstance(error) && error.code === "ABORTED")) throw error;
      io.stderr("interrupted: nothing was written\n");
      return 130;
    }
    if (out === undefined) {
      io.stdout(serialize(scores));
      return 0;
    }
    await writeFileAtomic(resolve(io.cwd, out), serialize(scores));
    const m = scores.metrics;
    if (args.values.json)
      io.stdout(`${JSON.stringify({ ok: true, out, valid: scores.valid, metrics: m })}\n`);
    else
      io.stdout(
        `wrote ${out}: block coverage ${m.blockCoverage.toFixed(3)}, block precision ${m.blockPrecision.toFixed(3)}, file coverage ${m.fileCoverage.toFixed(3)}, ${scores.warnings.length} warning(s)${scores.valid ? "" : " (no valid diagnosis)"}\n`,
      );
    return 0;
  },
});
