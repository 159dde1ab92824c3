import { z } from "zod";
import { formatTag, LineNumber, Sha256 } from "./common.js";
import { SearchPath } from "./search-path.js";

const Share = z.number().min(0).max(1);

/** A warning of the evaluator: the diagnosis named something it could not fully resolve. */
export const ScoreWarning = z.strictObject({
  code: z.enum([
    "path-outside-repository",
    "missing-file",
    "lines-out-of-range",
    "lines-reversed",
    "unknown-symbol",
    "ambiguous-symbol",
    "duplicate-span",
    "overlapping-span",
    "empty-diagnosis",
    "binary-file",
    "invalid-utf8",
    "unparsable-region",
    "blank-range-snapped",
    "span-over-limit",
    "span-over-count",
    "row-budget-exhausted",
    "path-only-span",
    "file-budget-exhausted",
    "scoring-deadline-exceeded",
    "invalid-diagnosis",
    "incident-mismatch",
    "no-atoms",
  ]),
  message: z.string(),
  /** Index of the predicted span it concerns, if any. */
  span: z.number().int().min(0).optional(),
  /** Index of the gold block it concerns, if any (a label the revision cannot resolve). */
  goldBlock: z.number().int().min(0).optional(),
  path: z.string().optional(),
});
/** An evaluator warning. */
export type ScoreWarning = z.infer<typeof ScoreWarning>;

/** The headline metrics of one attempt, all in [0, 1] (reachedAll is a boolean). */
export const ScoreMetrics = z.strictObject({
  blockCoverage: Share,
  blockPrecision: Share,
  fileCoverage: Share,
  linePrecision: Share,
  repositoryShare: Share,
  reachedAll: z.boolean(),
});
/** The headline metrics of one attempt. */
export type ScoreMetrics = z.infer<typeof ScoreMetrics>;

/**
 * The evaluator's parameters, recorded in every score file (defaults in brackets; they are
 * part of the evaluator version). EVALUATOR.md, "Metrics of one attempt", defines them.
 */
export const ScoreParameters = z.strictObject({
  /** A span of more significant rows earns no coverage [40]. */
  coverageSpanLimit: z.number().int().min(1),
  /** Only the first this many listed spans can earn coverage [20]. */
  coverageSpanCount: z.number().int().min(1),
  /** The row budget of coverage-earning spans is at most this [400]... */
  coverageRowBudget: z.number().int().min(1),
  /** ...at least this [20]... */
  coverageRowFloor: z.number().int().min(1),
  /**
   * ...and otherwise this share of the repository's rows, rounded down [0.02]; the file budget
   * is this share of its source files, rounded up...
   */
  coverageRepoShare: z.number().gt(0).max(1),
  /** ...and at least this many files [3]. */
  coverageFileFloor: z.number().int().min(1),
  /** A diagnosis with more blocks is invalid [200]. */
  maxDiagnosisBlocks: z.number().int().min(1),
});
/** The evaluator's parameters. */
export type ScoreParameters = z.infer<typeof ScoreParameters>;

/**
 * `diagnosis_scores.json`: the evaluator's verdict on one diagnosis.
 * The exact definitions are in docs (EVALUATOR.md).
 */
export const DiagnosisScores = z.strictObject({
  format: formatTag("diagnosis_scores", 1),
  incidentId: z.string(),
  /** False when there was no valid diagnosis: every metric is then 0. */
  valid: z.boolean(),
  metrics: ScoreMetrics,
  goldBlocks: z.array(
    z.strictObject({
      path: z.string(),
      startLine: LineNumber,
      endLine: LineNumber,
      atoms: z.number().int().min(0),
      reached: z.boolean(),
      /** Indexes of the predicted spans that reached it (coverage-earning spans only). */
      reachedBy: z.array(z.number().int().min(0)),
      /**
       * Did its file earn file credit (named by a span within the first `coverageSpanCount` and
       * the file budget, or the block reached)?
       */
      fileNamed: z.boolean(),
    }),
  ),
  spans: z.array(
    z.strictObject({
      /** How it was read: a line range, a symbol, or a whole file. */
      kind: z.enum(["lines", "symbol", "file"]),
      /** The normalized repository path it resolved to (null: none, or a symbol without path). */
      path: z.string().nullable(),
      startLine: z.number().int().optional(),
      endLine: z.number().int().optional(),
      symbol: z.string().optional(),
      /** Definitions a symbol resolved to (all overloads). */
      definitions: z.array(
        z.strictObject({
          path: z.string(),
          qualifiedName: z.string(),
          startLine: LineNumber,
          endLine: LineNumber,
        }),
      ),
      /** Number of atoms it resolved to. */
      atoms: z.number().int().min(0),
      /** Significant rows of those atoms (what the span-size limit and the row budget count). */
      rows: z.number().int().min(0),
      /** How many of its atoms are gold atoms. */
      goldAtoms: z.number().int().min(0),
      /** Phantom false-positive atoms it added (unresolvable path, lines or symbol). */
      phantomAtoms: z.number().int().min(0),
      earnsCoverage: z.boolean(),
      /** Codes of the warnings about it (details in `warnings`). */
      warnings: z.array(z.string()),
    }),
  ),
  counts: z.strictObject({
    predictedAtoms: z.number().int().min(0),
    goldAtoms: z.number().int().min(0),
    correctAtoms: z.number().int().min(0),
    /** Phantom false positives (included in predictedAtoms). */
    phantomAtoms: z.number().int().min(0),
    /** Atoms of coverage-earning spans, and the rows they used of the row budget. */
    coverageAtoms: z.number().int().min(0),
    coverageRows: z.number().int().min(0),
    /**
     * The row budget B of coverage-earning spans for this repository:
     * `min(coverageRowBudget, max(coverageRowFloor, floor(coverageRepoShare * repositoryRows)))`
     * (0 when there is no valid diagnosis).
     */
    coverageBudget: z.number().int().min(0),
    namedRows: z.number().int().min(0),
    correctRows: z.number().int().min(0),
    goldRows: z.number().int().min(0),
    /**
     * R: the non-blank lines of the revision's files in the evaluator's languages (counted
     * without parsing); the denominator of `repositoryShare` and the base of the row budget.
     */
    repositoryRows: z.number().int().min(0),
    /** F: the files counted in `repositoryRows`. */
    repositoryFiles: z.number().int().min(0),
    /**
     * The file budget Bf: at most this many distinct files earn file credit,
     * `max(coverageFileFloor, ceil(coverageRepoShare * repositoryFiles))` (0 when there is no
     * valid diagnosis).
     */
    fileBudget: z.number().int().min(0),
    /** The distinct files that earned file credit. */
    creditedFiles: z.number().int().min(0),
  }),
  warnings: z.array(ScoreWarning),
  /**
   * The search path (docs/guide/metrics.md): which gold code the agent's observations showed,
   * when and at what cost. Present when the attempt was scored with its trajectory (absent for
   * a diagnosis scored alone, as `distdebug evaluate` does).
   */
  search: SearchPath.optional(),
  parameters: ScoreParameters,
  versions: z.strictObject({
    evaluator: z.string(),
    grammars: z.record(z.string(), z.string()),
  }),
  /**
   * sha256 of everything these scores depend on: the diagnosis and trajectory bytes scored,
   * the gold labels, the incident (its buggy revision), the evaluator version, grammars and
   * parameters. `distdebug score` reuses the file while this matches and rescores otherwise.
   * Absent in scores of a diagnosis scored alone (`distdebug evaluate`) and in files of earlier releases.
   */
  inputHash: Sha256.optional(),
});
/** `diagnosis_scores.json`. */
export type DiagnosisScores = z.infer<typeof DiagnosisScores>;
