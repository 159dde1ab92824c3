import type { DiagnosisBlock, DiagnosisScores, GoldBlock, ScoreWarning } from "@distdebug/schema";
import { GRAMMAR_VERSIONS } from "../languages.js";
import type { EvaluatorParameters } from "../parameters.js";
import { EVALUATOR_VERSION } from "../version.js";
import { pacer } from "./abort.js";
import type { ResolvedSpan } from "./resolve-span.js";

/** A gold block resolved to atom keys and raw significant row keys. */
export interface GoldSide {
  block: GoldBlock;
  /** The normalized path (or the label's path when the file is missing). */
  path: string;
  atoms: number[];
  rows: number[];
}

/** Everything the metrics need. */
export interface ScoreSpansInput {
  incidentId: string;
  gold: GoldSide[];
  /** The diagnosis's blocks in listed order, each with its resolution. */
  spans: { resolved: ResolvedSpan; block: DiagnosisBlock }[];
  warnings: ScoreWarning[];
  parameters: EvaluatorParameters;
  /** B: the row budget of coverage-earning spans in this repository. */
  coverageBudget: number;
  /** Bf: at most this many distinct files earn file credit. */
  fileBudget: number;
  /** R: the repository's non-blank source lines. */
  repositoryRows: number;
  repositoryFiles: number;
  /** Aborting stops the pass with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

type SpanWarning = Omit<ScoreWarning, "span">;

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.min(1, part / whole);
}

/**
 * The coverage rule of EVALUATOR.md: a span earns coverage when it is among the first
 * `coverageSpanCount` listed spans, has at most `coverageSpanLimit` significant rows, and the
 * rows of the spans that earned so far, its own included, stay within the budget B (rows of an
 * atom an earlier earner holds are not counted twice). Spans are offered in listed order.
 */
class CoverageLedger {
  /** Atoms of the spans that earned. */
  readonly atoms = new Set<number>();
  /** Rows those atoms own. */
  rows = 0;
  readonly #parameters: EvaluatorParameters;
  readonly #budget: number;

  constructor(parameters: EvaluatorParameters, budget: number) {
    this.#parameters = parameters;
    this.#budget = budget;
  }

  /** Books span `index` when it earns; otherwise returns why it does not. */
  offer(index: number, span: ResolvedSpan): SpanWarning | undefined {
    const { coverageSpanCount, coverageSpanLimit } = this.#parameters;
    if (index >= coverageSpanCount)
      return {
        code: "span-over-count",
        message: `span ${index} comes after the first ${coverageSpanCount} spans: it earns no coverage`,
      };
    if (span.kind === "file")
      return {
        code: "path-only-span",
        message: `span ${index} names a whole file by its path: it earns file credit at most, never block coverage`,
      };
    if (span.rows > coverageSpanLimit)
      return {
        code: "span-over-limit",
        message: `span ${index} covers ${span.rows} significant rows, over the ${coverageSpanLimit}-row limit: it costs precision and earns no coverage`,
      };
    let rows = 0;
    span.atoms.forEach((atom, position) => {
      if (!this.atoms.has(atom)) rows += span.atomRows[position] as number;
    });
    if (this.rows + rows > this.#budget)
      return {
        code: "row-budget-exhausted",
        message: `span ${index} adds ${rows} rows to the ${this.rows} of earlier coverage spans, over this repository's ${this.#budget}-row budget: it earns no coverage`,
      };
    this.rows += rows;
    for (const atom of span.atoms) this.atoms.add(atom);
    return undefined;
  }
}

/**
 * The file credit rule of EVALUATOR.md: in listed order, among the first `coverageSpanCount`
 * spans, a span's files earn file credit when the distinct files credited so far, its own
 * included, stay within the file budget Bf (all of a span's files or none).
 */
class FileLedger {
  readonly files = new Set<string>();
  readonly #spanCount: number;
  readonly #budget: number;

  constructor(spanCount: number, budget: number) {
    this.#spanCount = spanCount;
    this.#budget = budget;
  }

  /** Credits the files of span `index` when they fit; otherwise returns why not. */
  offer(index: number, files: readonly string[]): SpanWarning | undefined {
    if (index >= this.#spanCount || files.length === 0) return undefined;
    const fresh = new Set(files.filter((file) => !this.files.has(file)));
    if (this.files.size + fresh.size > this.#budget)
      return {
        code: "file-budget-exhausted",
        message: `span ${index} names ${fresh.size} more file(s) after ${this.files.size}, over this repository's ${this.#budget}-file budget: its files earn no file credit`,
      };
    for (const file of fresh) this.files.add(file);
    return undefined;
  }
}

/** Computes the metrics of EVALUATOR.md from resolved gold blocks and spans. */
export async function scoreSpans(input: ScoreSpansInput): Promise<DiagnosisScores> {
  const { parameters } = input;
  const warnings = [...input.warnings];
  const goldAtoms = new Set<number>();
  const goldRows = new Set<number>();
  for (const side of input.gold) {
    for (const atom of side.atoms) goldAtoms.add(atom);
    for (const row of side.rows) goldRows.add(row);
  }
  const predicted = new Set<number>();
  const ledger = new CoverageLedger(parameters, input.coverageBudget);
  const fileLedger = new FileLedger(parameters.coverageSpanCount, input.fileBudget);
  const named = new Set<number>();
  let phantoms = 0;
  const spanRecords: DiagnosisScores["spans"] = [];
  /** The spans that earned coverage, by listed index. */
  const earners: { index: number; atoms: Set<number> }[] = [];
  const pace = pacer(input.signal);
  for (const [index, { resolved, block }] of input.spans.entries()) {
    const pausing = pace(1 + resolved.atoms.length);
    if (pausing) await pausing;
    const codes: string[] = [];
    const warn = (warning: SpanWarning) => {
      warnings.push({ ...warning, span: index });
      codes.push(warning.code);
    };
    for (const warning of resolved.warnings) warn(warning);
    const atoms = resolved.atoms;
    let fresh = 0;
    for (const atom of atoms) if (!predicted.has(atom)) fresh++;
    if (atoms.length > 0 && fresh === 0)
      warn({
        code: "duplicate-span",
        message: `span ${index} names only atoms an earlier span named`,
      });
    else if (atoms.length > 0 && fresh < atoms.length)
      warn({
        code: "overlapping-span",
        message: `span ${index} overlaps an earlier span (${atoms.length - fresh} shared atoms)`,
      });
    for (const atom of atoms) predicted.add(atom);
    phantoms += resolved.phantom;
    for (const row of resolved.namedRows) named.add(row);
    const fileRefusal = fileLedger.offer(index, resolved.files);
    if (fileRefusal) warn(fileRefusal);
    let earns = false;
    if (atoms.length > 0) {
      const refusal = ledger.offer(index, resolved);
      if (refusal) warn(refusal);
      else {
        earns = true;
        earners.push({ index, atoms: new Set(atoms) });
      }
    }
    let correct = 0;
    for (const atom of atoms) if (goldAtoms.has(atom)) correct++;
    spanRecords.push({
      kind: resolved.kind,
      path: resolved.path,
      ...(block.startLine !== undefined ? { startLine: block.startLine } : {}),
      ...(block.endLine !== undefined ? { endLine: block.endLine } : {}),
      ...(block.symbol !== undefined ? { symbol: block.symbol } : {}),
      definitions: resolved.definitions,
      atoms: atoms.length,
      rows: resolved.rows,
      goldAtoms: correct,
      phantomAtoms: resolved.phantom,
      earnsCoverage: earns,
      warnings: codes,
    });
  }
  const goldRecords: DiagnosisScores["goldBlocks"] = input.gold.map((side) => {
    const reached = side.atoms.some((atom) => ledger.atoms.has(atom));
    return {
      path: side.block.path,
      startLine: side.block.startLine,
      endLine: side.block.endLine,
      atoms: side.atoms.length,
      reached,
      reachedBy: earners
        .filter((earner) => side.atoms.some((atom) => earner.atoms.has(atom)))
        .map((earner) => earner.index),
      // A block reached earns its file: file coverage >= block coverage.
      fileNamed: reached || fileLedger.files.has(side.path),
    };
  });
  let correctAtoms = 0;
  for (const atom of predicted) if (goldAtoms.has(atom)) correctAtoms++;
  let correctRows = 0;
  for (const row of named) if (goldRows.has(row)) correctRows++;
  const blocks = goldRecords.length;
  const reached = goldRecords.filter((record) => record.reached).length;
  const predictedAtoms = predicted.size + phantoms;
  return {
    format: "distdebug.diagnosis_scores/1",
    incidentId: input.incidentId,
    valid: true,
    metrics: {
      blockCoverage: ratio(reached, blocks),
      blockPrecision: ratio(correctAtoms, predictedAtoms),
      fileCoverage: ratio(goldRecords.filter((record) => record.fileNamed).length, blocks),
      linePrecision: ratio(correctRows, named.size),
      repositoryShare: ratio(named.size, input.repositoryRows),
      reachedAll: blocks > 0 && reached === blocks,
    },
    goldBlocks: goldRecords,
    spans: spanRecords,
    counts: {
      predictedAtoms,
      goldAtoms: goldAtoms.size,
      correctAtoms,
      phantomAtoms: phantoms,
      coverageAtoms: ledger.atoms.size,
      coverageRows: ledger.rows,
      coverageBudget: input.coverageBudget,
      namedRows: named.size,
      correctRows,
      goldRows: goldRows.size,
      repositoryRows: input.repositoryRows,
      repositoryFiles: input.repositoryFiles,
      fileBudget: input.fileBudget,
      creditedFiles: fileLedger.files.size,
    },
    warnings,
    parameters: { ...parameters },
    versions: { evaluator: EVALUATOR_VERSION, grammars: { ...GRAMMAR_VERSIONS } },
  };
}
