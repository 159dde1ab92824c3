import type { Language } from "@distdebug/schema";
import type { Atom, AtomIndex, AtomIndexStatus } from "../atom-index.js";
import { grammarOf, type LanguageChoice } from "../languages.js";
import type { AtomCandidates } from "./atom-candidates.js";
import { collectTree, fromWalk } from "./collect-tree.js";
import { POSITION_SCALE } from "./positions.js";
import { LANGUAGE_SPECS } from "./specs.js";
import { collectDefinitions, definitionNodeTypes, type RawDefinitions } from "./symbols.js";
import { type DecodedSource, isSignificantText, splitLines } from "./text.js";
import { Parser } from "./tree-sitter.js";
import { type Range, walkTree } from "./walk-tree.js";

/** The atom index plus the arrays the scorer reads (internal). */
export interface FileIndex {
  language: LanguageChoice;
  status: AtomIndexStatus;
  lineCount: number;
  /** Owner atom id by line (1-based; index 0 unused); -1 for an insignificant line. */
  owner: Int32Array;
  significantLines: number;
  /** Number of atoms; per-atom facts are in the typed arrays below (compact for big repos). */
  atomCount: number;
  atomTypes: string[];
  /** 1 for a line atom (fallback), 0 for a syntax atom. */
  atomKinds: Uint8Array;
  atomStartLine: Int32Array;
  atomEndLine: Int32Array;
  /** Owned lines of atom `id`: `atomLines[atomLineOffsets[id] .. atomLineOffsets[id + 1]]`. */
  atomLineOffsets: Int32Array;
  atomLines: Int32Array;
  /** Per atom: the lines of its container (snapping stays inside it). */
  containerStart: Int32Array;
  containerEnd: Int32Array;
  /** Per atom: node start and end as position keys (symbol resolution). */
  startPosition: Float64Array;
  endPosition: Float64Array;
  unparsableLines: number[];
  invalidUtf8: boolean;
  bom: boolean;
  /** Definitions found in the same parse (qualified per path on use). */
  definitions: RawDefinitions;
}

/** Syntax atom candidates with their row ranges and position keys (internal). */
interface Candidates {
  count: number;
  types: string[];
  startRow: Int32Array;
  /** Last row (a node ending in the next line's indentation ends on the line before). */
  endRow: Int32Array;
  containerStart: Int32Array;
  containerEnd: Int32Array;
  /** Position keys of the node's start and end. */
  start: Float64Array;
  end: Float64Array;
}

const NO_CANDIDATES: Candidates = {
  count: 0,
  types: [],
  startRow: new Int32Array(0),
  endRow: new Int32Array(0),
  containerStart: new Int32Array(0),
  containerEnd: new Int32Array(0),
  start: new Float64Array(0),
  end: new Float64Array(0),
};

const parsers = new Map<Language, Parser>();

/** The shared parser of a language (parsing is synchronous, so one per language is enough). */
export function parserFor(language: Language): Parser {
  let parser = parsers.get(language);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(grammarOf(language));
    parsers.set(language, parser);
  }
  return parser;
}

/** Parse buffer size: large inputs parse in 1 MiB chunks, whatever their size. */
const PARSE_BUFFER = 1024 * 1024;

/** Parses text with no size limit. */
export function parseText(language: Language, text: string): Parser.Tree {
  return parserFor(language).parse(text, null, { bufferSize: PARSE_BUFFER });
}

function key(row: number, column: number): number {
  return row * POSITION_SCALE + column;
}

/** Significant-line flags (by 0-based row) with the comment ranges blanked out. */
function significance(lines: string[], comments: Range[]): Uint8Array {
  const flags = new Uint8Array(lines.length);
  for (let row = 0; row < lines.length; row++)
    flags[row] = isSignificantText(lines[row] as string) ? 1 : 0;
  if (comments.length === 0) return flags;
  const masks = new Map<number, [number, number][]>();
  const addMask = (row: number, from: number, to: number) => {
    const list = masks.get(row);
    if (list) list.push([from, to]);
    else masks.set(row, [[from, to]]);
  };
  for (const comment of comments) {
    if (comment.endRow === comment.startRow)
      addMask(comment.startRow, comment.startColumn, comment.endColumn);
    else {
      addMask(comment.startRow, comment.startColumn, Number.POSITIVE_INFINITY);
      for (let row = comment.startRow + 1; row < comment.endRow; row++) flags[row] = 0;
      addMask(comment.endRow, 0, comment.endColumn);
    }
  }
  for (const [row, ranges] of masks) {
    const line = lines[row];
    if (line === undefined || !flags[row]) continue;
    ranges.sort((a, b) => a[0] - b[0]);
    let rest = "";
    let at = 0;
    for (const [from, to] of ranges) {
      if (from > at) rest += line.slice(at, from);
      at = Math.max(at, to);
    }
    if (at < line.length) rest += line.slice(at);
    flags[row] = isSignificantText(rest) ? 1 : 0;
  }
  return flags;
}

function emptyIndex(source: DecodedSource, language: LanguageChoice, status: AtomIndexStatus) {
  return {
    language,
    status,
    invalidUtf8: source.invalidUtf8,
    bom: source.bom,
  };
}

/**
 * Each significant row goes to the latest-starting candidate covering it (the shorter one
 * when two start together, the later one when two coincide): the nested or the next atom.
 */
function ownersOf(candidates: Candidates, flags: Uint8Array, lineCount: number): Int32Array {
  const ownerRow = new Int32Array(lineCount).fill(-1);
  const { start, end } = candidates;
  for (let index = 0; index < candidates.count; index++) {
    const first = candidates.startRow[index] as number;
    const last = Math.min(candidates.endRow[index] as number, lineCount - 1);
    const from = start[index] as number;
    const to = end[index] as number;
    for (let row = first; row <= last; row++) {
      if (!flags[row]) continue;
      const current = ownerRow[row] as number;
      if (
        current === -1 ||
        from > (start[current] as number) ||
        (from === start[current] && to <= (end[current] as number))
      )
        ownerRow[row] = index;
    }
  }
  return ownerRow;
}

/** Finishes an index from candidates (in any order: ownership does not depend on it). */
function assemble(
  base: ReturnType<typeof emptyIndex>,
  lines: string[],
  flags: Uint8Array,
  candidates: Candidates,
  errorRows: Uint8Array | undefined,
): FileIndex {
  const lineCount = lines.length;
  const syntaxCount = candidates.count;
  const ownerRow = ownersOf(candidates, flags, lineCount);
  // Rows in ERROR regions and significant rows no syntax atom owns become line atoms.
  const lineAtomRows: number[] = [];
  const unparsableLines: number[] = [];
  for (let row = 0; row < lineCount; row++) {
    if (!flags[row]) continue;
    const inError = errorRows?.[row] === 1;
    if (inError) unparsableLines.push(row + 1);
    if (inError || ownerRow[row] === -1) {
      ownerRow[row] = syntaxCount + lineAtomRows.length;
      lineAtomRows.push(row);
    }
  }
  // Final ids in order of first owned row.
  const finalId = new Int32Array(syntaxCount + lineAtomRows.length).fill(-1);
  const order: number[] = [];
  const owner = new Int32Array(lineCount + 1).fill(-1);
  let significantLines = 0;
  for (let row = 0; row < lineCount; row++) {
    const candidate = ownerRow[row] as number;
    if (candidate === -1) continue;
    significantLines++;
    let id = finalId[candidate] as number;
    if (id === -1) {
      id = order.length;
      finalId[candidate] = id;
      order.push(candidate);
    }
    owner[row + 1] = id;
  }
  const count = order.length;
  const atomLineOffsets = new Int32Array(count + 1);
  for (let line = 1; line <= lineCount; line++) {
    const id = owner[line] as number;
    if (id >= 0) atomLineOffsets[id + 1] = (atomLineOffsets[id + 1] as number) + 1;
  }
  for (let id = 0; id < count; id++)
    atomLineOffsets[id + 1] = (atomLineOffsets[id + 1] as number) + (atomLineOffsets[id] as number);
  const atomLines = new Int32Array(significantLines);
  const fill = atomLineOffsets.slice(0, count);
  for (let line = 1; line <= lineCount; line++) {
    const id = owner[line] as number;
    if (id < 0) continue;
    atomLines[fill[id] as number] = line;
    fill[id] = (fill[id] as number) + 1;
  }
  const containerStart = new Int32Array(count);
  const containerEnd = new Int32Array(count);
  const startPosition = new Float64Array(count);
  const endPosition = new Float64Array(count);
  const atomTypes: string[] = new Array(count);
  const atomKinds = new Uint8Array(count);
  const atomStartLine = new Int32Array(count);
  const atomEndLine = new Int32Array(count);
  for (let id = 0; id < count; id++) {
    const candidate = order[id] as number;
    if (candidate < syntaxCount) {
      atomTypes[id] = candidates.types[candidate] as string;
      atomStartLine[id] = (candidates.startRow[candidate] as number) + 1;
      atomEndLine[id] = (candidates.endRow[candidate] as number) + 1;
      containerStart[id] = (candidates.containerStart[candidate] as number) + 1;
      containerEnd[id] = (candidates.containerEnd[candidate] as number) + 1;
      startPosition[id] = candidates.start[candidate] as number;
      endPosition[id] = candidates.end[candidate] as number;
    } else {
      const row = lineAtomRows[candidate - syntaxCount] as number;
      atomTypes[id] = "line";
      atomKinds[id] = 1;
      atomStartLine[id] = row + 1;
      atomEndLine[id] = row + 1;
      containerStart[id] = 1;
      containerEnd[id] = lineCount;
      startPosition[id] = key(row, 0);
      endPosition[id] = key(row, (lines[row] as string).length);
    }
  }
  return {
    ...base,
    definitions: { packageParts: undefined, items: [] },
    lineCount,
    owner,
    significantLines,
    atomCount: count,
    atomTypes,
    atomKinds,
    atomStartLine,
    atomEndLine,
    atomLineOffsets,
    atomLines,
    containerStart,
    containerEnd,
    startPosition,
    endPosition,
    unparsableLines,
  };
}

/** The owned lines of one atom (a view, ascending). */
export function linesOfAtom(index: FileIndex, id: number): Int32Array {
  return index.atomLines.subarray(index.atomLineOffsets[id], index.atomLineOffsets[id + 1]);
}

/** How many lines one atom owns. */
export function lineCountOfAtom(index: FileIndex, id: number): number {
  return (index.atomLineOffsets[id + 1] as number) - (index.atomLineOffsets[id] as number);
}

/** Line atoms only: for files of other languages (comments cannot be told apart there). */
export function buildTextIndex(
  source: DecodedSource,
  language: LanguageChoice = "text",
): FileIndex {
  const base = emptyIndex(source, language, source.binary ? "binary" : "text");
  if (source.binary) return assemble(base, [], new Uint8Array(0), NO_CANDIDATES, undefined);
  const lines = splitLines(source.text);
  return assemble(base, lines, significance(lines, []), NO_CANDIDATES, undefined);
}

/** The atom index of a source file in one of the seven languages. */
export function buildSyntaxIndex(source: DecodedSource, language: Language): FileIndex {
  if (source.binary) return buildTextIndex(source, language);
  const spec = LANGUAGE_SPECS[language];
  const lines = splitLines(source.text);
  let tree: Parser.Tree;
  try {
    tree = parseText(language, source.text);
  } catch {
    const index = buildTextIndex(source, language);
    index.unparsableLines = Array.from(index.atomLines);
    return index;
  }
  const definitionTypes = definitionNodeTypes(language);
  const walked =
    collectTree(
      tree,
      source.text,
      spec,
      definitionTypes.definitions,
      definitionTypes.packageType,
    ) ?? fromWalk(walkTree(tree, spec, definitionTypes.definitions, definitionTypes.packageType));
  const flags = significance(lines, walked.comments);
  const index = assemble(
    emptyIndex(source, language, "parsed"),
    lines,
    flags,
    candidatesOf(walked.atoms, lines),
    errorRowsOf(walked.errors, lines.length),
  );
  index.definitions = collectDefinitions(
    language,
    walked.definitions,
    walked.packageNode,
    lines,
    walked.wrappers,
  );
  return index;
}

/** Rows inside ERROR regions, or `undefined` when there are none. */
function errorRowsOf(errors: Range[], lineCount: number): Uint8Array | undefined {
  if (errors.length === 0) return undefined;
  const errorRows = new Uint8Array(lineCount);
  for (const error of errors) {
    const last = Math.min(error.endRow, lineCount - 1);
    for (let row = error.startRow; row <= last; row++) errorRows[row] = 1;
  }
  return errorRows;
}

/** Row ranges and position keys of the collected atoms. */
function candidatesOf(atoms: AtomCandidates, lines: string[]): Candidates {
  const count = atoms.count;
  const endRow = new Int32Array(count);
  const start = new Float64Array(count);
  const end = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    const first = atoms.startRow[index] as number;
    const endColumn = atoms.endColumn[index] as number;
    let last = atoms.endRow[index] as number;
    start[index] = key(first, atoms.startColumn[index] as number);
    end[index] = key(last, endColumn);
    // Indentation-based grammars (Scala 3) end a node at the next line's first token:
    // that line is not the node's.
    if (last > first && (lines[last] ?? "").slice(0, endColumn).trim() === "") last--;
    endRow[index] = last;
  }
  return {
    count,
    types: atoms.types,
    startRow: atoms.startRow,
    endRow,
    containerStart: atoms.containerStart,
    containerEnd: atoms.containerEnd,
    start,
    end,
  };
}

/** The public view of an index. */
export function toAtomIndex(path: string, index: FileIndex): AtomIndex {
  return {
    path,
    language: index.language,
    status: index.status,
    lineCount: index.lineCount,
    significantLines: index.significantLines,
    atoms: Array.from(
      { length: index.atomCount },
      (_, id): Atom => ({
        id,
        kind: index.atomKinds[id] === 1 ? "line" : "syntax",
        type: index.atomTypes[id] as string,
        startLine: index.atomStartLine[id] as number,
        endLine: index.atomEndLine[id] as number,
        lines: Array.from(linesOfAtom(index, id)),
      }),
    ),
    unparsableLines: index.unparsableLines,
    invalidUtf8: index.invalidUtf8,
    bom: index.bom,
  };
}
