import type { DiagnosisScores, Gold } from "@distdebug/schema";
import { GRAMMAR_VERSIONS } from "./languages.js";
import type { EvaluatorParameters } from "./parameters.js";
import { DEFAULT_EVALUATOR_PARAMETERS, EVALUATOR_VERSION } from "./version.js";

/** Options of {@link scoreMissingDiagnosis}. */
export interface MissingDiagnosisOptions {
  gold: Pick<Gold, "incidentId" | "blocks">;
  /** Why there is no valid diagnosis (agent error, invalid file, limit exceeded...). */
  reason: string;
  /** The evaluator parameters to record. Default: the defaults. */
  parameters?: Readonly<EvaluatorParameters>;
}

/**
 * The scores of an attempt with no valid diagnosis: `valid: false`, 0 on every metric (the
 * attempt stays in every mean) and every count (the repository is not read), each gold block
 * unreached, one `invalid-diagnosis` warning. Needs no source files.
 *
 * @example
 * ```ts
 * const scores = scoreMissingDiagnosis({ gold, reason: "the agent wrote no diagnosis.json" });
 * scores.metrics.blockCoverage; // 0
 * ```
 */
export function scoreMissingDiagnosis(options: MissingDiagnosisOptions): DiagnosisScores {
  const { gold } = options;
  return {
    format: "distdebug.diagnosis_scores/1",
    incidentId: gold.incidentId,
    valid: false,
    metrics: {
      blockCoverage: 0,
      blockPrecision: 0,
      fileCoverage: 0,
      linePrecision: 0,
      repositoryShare: 0,
      reachedAll: false,
    },
    goldBlocks: gold.blocks.map((block) => ({
      path: block.path,
      startLine: block.startLine,
      endLine: block.endLine,
      atoms: 0,
      reached: false,
      reachedBy: [],
      fileNamed: false,
    })),
    spans: [],
    counts: {
      predictedAtoms: 0,
      goldAtoms: 0,
      correctAtoms: 0,
      phantomAtoms: 0,
      coverageAtoms: 0,
      coverageRows: 0,
      coverageBudget: 0,
      namedRows: 0,
      correctRows: 0,
      goldRows: 0,
      repositoryRows: 0,
      repositoryFiles: 0,
      fileBudget: 0,
      creditedFiles: 0,
    },
    warnings: [{ code: "invalid-diagnosis", message: options.reason }],
    parameters: { ...(options.parameters ?? DEFAULT_EVALUATOR_PARAMETERS) },
    versions: { evaluator: EVALUATOR_VERSION, grammars: { ...GRAMMAR_VERSIONS } },
  };
}
