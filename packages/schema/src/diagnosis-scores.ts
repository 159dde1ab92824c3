import { z } from "zod";
import { formatTag, LineNumber } from "./common.js";

const Share = z.number().min(0).max(1);

/** A warning of the evaluator: the diagnosis named something it could not fully resolve. */
export const ScoreWarning = z.object({
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
    "row-budget-exhausted",
    "invalid-diagnosis",
    "incident-mismatch",
  ]),
  message: z.string(),
  /** Index of the predicted span it concerns, if any. */
  span: z.number().int().min(0).optional(),
  path: z.string().optional(),
});
/** An evaluator warning. */
export type ScoreWarning = z.infer<typeof ScoreWarning>;

/** The headline metrics of one attempt, all in [0, 1] (reachedAll is a boolean). */
export const ScoreMetrics = z.object({
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
 * `diagnosis_scores.json`: the evaluator's verdict on one diagnosis.
 * The exact definitions are in docs (EVALUATOR.md).
 */
export const DiagnosisScores = z.object({
  format: formatTag("diagnosis_scores", 1),
  incidentId: z.string(),
  /** False when there was no valid diagnosis: every metric is then 0. */
  valid: z.boolean(),
  metrics: ScoreMetrics,
  goldBlocks: z.array(
    z.object({
      path: z.string(),
      startLine: LineNumber,
      endLine: LineNumber,
      atoms: z.number().int().min(0),
      reached: z.boolean(),
      /** Indexes of the predicted spans that reached it (coverage-earning spans only). */
      reachedBy: z.array(z.number().int().min(0)),
      /** Was its file named by any span? */
      fileNamed: z.boolean(),
    }),
  ),
  spans: z.array(
    z.object({
      path: z.string().nullable(),
      startLine: z.number().int().optional(),
      endLine: z.number().int().optional(),
      symbol: z.string().optional(),
      /** Number of atoms it resolved to. */
      atoms: z.number().int().min(0),
      rows: z.number().int().min(0),
      goldAtoms: z.number().int().min(0),
      earnsCoverage: z.boolean(),
      warnings: z.array(z.string()),
    }),
  ),
  counts: z.object({
    predictedAtoms: z.number().int().min(0),
    goldAtoms: z.number().int().min(0),
    correctAtoms: z.number().int().min(0),
    namedRows: z.number().int().min(0),
    correctRows: z.number().int().min(0),
    repositoryRows: z.number().int().min(0),
  }),
  warnings: z.array(ScoreWarning),
  parameters: z.object({
    coverageSpanLimit: z.number().int().min(1),
    coverageRowBudget: z.number().int().min(1),
  }),
  versions: z.object({
    evaluator: z.string(),
    grammars: z.record(z.string(), z.string()),
  }),
});
/** `diagnosis_scores.json`. */
export type DiagnosisScores = z.infer<typeof DiagnosisScores>;
