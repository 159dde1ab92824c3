import type { DiagnosisScores, GoldBlock, ScoreWarning } from "@distdebug/schema";
import { GRAMMAR_VERSIONS } from "../languages.js";
import { EVALUATOR_VERSION } from "../version.js";
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
  spans: { resolved: ResolvedSpan; block: unknown }[];
  warnings: ScoreWarning[];
  parameters: { coverageSpanLimit: number; coverageRowBudget: number };
  repositoryRows: number;
  repositoryFiles: number;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.min(1, part / whole);
}

function field<T>(block: unknown, name: string): T | undefined {
  if (block === null || typeof block !== "object") return undefined;
  return (block as Record<string, unknown>)[name] as T | undefined;
}

/** Computes the metrics of EVALUATOR.md from resolved gold blocks and spans. */
export function scoreSpans(input: ScoreSpansInput): DiagnosisScores {
  const { parameters } = input;
  const warnings = [...input.warnings];
  const goldAtoms = new Set<number>();
  const goldRows = new Set<number>();
  for (const side of input.gold) {
    for (const atom of side.atoms) goldAtoms.add(atom);
    for (const row of side.rows) goldRows.add(row);
  }
  const predicted = new Set<number>();
  const coverage = new Set<number>();
  const named = new Set<number>();
  const namedFiles = new Set<string>();
  const rowsOfAtom = new Map<number, number>();
  let phantoms = 0;
  let budgetUsed = 0;
  let budgetClosed = false;
  const spanRecords: DiagnosisScores["spans"] = [];
  const earning: boolean[] = [];
  input.spans.forEach(({ resolved, block }, index) => {
    const codes: string[] = [];
    const warn = (warning: Omit<ScoreWarning, "span">) => {
      warnings.push({ ...warning, span: index });
      codes.push(warning.code);
    };
    for (const warning of resolved.warnings) warn(warning);
    const atoms = resolved.atoms;
    atoms.forEach((atom, position) => {
      rowsOfAtom.set(atom, resolved.atomRows[position] ?? 0);
    });
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
    for (const file of resolved.files) namedFiles.add(file);
    // Coverage: small spans, in listed order, within the row budget.
    let earns = false;
    if (atoms.length > 0) {
      if (resolved.rows > parameters.coverageSpanLimit) {
        warn({
          code: "span-over-limit",
          message: `span ${index} covers ${resolved.rows} significant rows, over the ${parameters.coverageSpanLimit}-row limit: it costs precision and earns no coverage`,
        });
      } else if (!budgetClosed) {
        // Rows of atoms an earlier coverage span already holds are not counted twice.
        let newRows = 0;
        for (const atom of atoms) if (!coverage.has(atom)) newRows += rowsOfAtom.get(atom) ?? 0;
        if (budgetUsed + newRows > parameters.coverageRowBudget) {
          budgetClosed = true;
        } else {
          earns = true;
          budgetUsed += newRows;
          for (const atom of atoms) coverage.add(atom);
        }
      }
      if (budgetClosed && !earns && resolved.rows <= parameters.coverageSpanLimit)
        warn({
          code: "row-budget-exhausted",
          message: `span ${index} comes after the ${parameters.coverageRowBudget}-row coverage budget was used up: it earns no coverage`,
        });
    }
    earning.push(earns);
    let correct = 0;
    for (const atom of atoms) if (goldAtoms.has(atom)) correct++;
    const startLine = field<number>(block, "startLine");
    const endLine = field<number>(block, "endLine");
    const symbol = field<string>(block, "symbol");
    spanRecords.push({
      kind: resolved.kind,
      path: resolved.path,
      ...(typeof startLine === "number" && Number.isInteger(startLine) ? { startLine } : {}),
      ...(typeof endLine === "number" && Number.isInteger(endLine) ? { endLine } : {}),
      ...(typeof symbol === "string" ? { symbol } : {}),
      definitions: resolved.definitions,
      atoms: atoms.length,
      rows: resolved.rows,
      goldAtoms: correct,
      phantomAtoms: resolved.phantom,
      earnsCoverage: earns,
      warnings: codes,
    });
  });
  const goldRecords: DiagnosisScores["goldBlocks"] = input.gold.map((side) => {
    const reachedBy: number[] = [];
    input.spans.forEach(({ resolved }, index) => {
      if (!earning[index]) return;
      const atoms = new Set(resolved.atoms);
      if (side.atoms.some((atom) => atoms.has(atom))) reachedBy.push(index);
    });
    return {
      path: side.block.path,
      startLine: side.block.startLine,
      endLine: side.block.endLine,
      atoms: side.atoms.length,
      reached: side.atoms.some((atom) => coverage.has(atom)),
      reachedBy,
      fileNamed: namedFiles.has(side.path),
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
      coverageAtoms: coverage.size,
      coverageRows: budgetUsed,
      namedRows: named.size,
      correctRows,
      goldRows: goldRows.size,
      repositoryRows: input.repositoryRows,
      repositoryFiles: input.repositoryFiles,
    },
    warnings,
    parameters: { ...parameters },
    versions: { evaluator: EVALUATOR_VERSION, grammars: { ...GRAMMAR_VERSIONS } },
  };
}
