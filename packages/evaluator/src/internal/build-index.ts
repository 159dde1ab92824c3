import type { Language } from "@distdebug/schema";
import Parser from "tree-sitter";
import type { Atom, AtomIndex, AtomIndexStatus } from "../atom-index.js";
import { grammarOf, type LanguageChoice } from "../languages.js";
import { POSITION_SCALE } from "./positions.js";
import { LANGUAGE_SPECS } from "./specs.js";
import { collectDefinitions, definitionNodeTypes, type RawDefinitions } from "./symbols.js";
import { type DecodedSource, isSignificantText, splitLines } from "./text.js";
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

interface Candidate {
  type: string;
  start: number;
  end: number;
  startRow: number;
  endRow: number;
  containerStart: number;
  containerEnd: number;
}

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

/** Finishes an index from candidates (already ordered so that later ones are nested or later). */
function assemble(
  base: ReturnType<typeof emptyIndex>,
  lines: string[],
  flags: Uint8Array,
  candidates: Candidate[],
  errorRows: Uint8Array | undefined,
): FileIndex {
  const lineCount = lines.length;
  const ownerRow = new Int32Array(lineCount).fill(-1);
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index] as Candidate;
    const last = Math.min(candidate.endRow, lineCount - 1);
    for (let row = candidate.startRow; row <= last; row++) if (flags[row]) ownerRow[row] = index;
  }
  // Rows in ERROR regions and significant rows no syntax atom owns become line atoms.
  const lineAtoms: Candidate[] = [];
  const unparsableLines: number[] = [];
  for (let row = 0; row < lineCount; row++) {
    if (!flags[row]) continue;
    const inError = errorRows?.[row] === 1;
    if (inError) unparsableLines.push(row + 1);
    if (inError || ownerRow[row] === -1) {
      ownerRow[row] = candidates.length + lineAtoms.length;
      lineAtoms.push({
        type: "line",
        start: key(row, 0),
        end: key(row, (lines[row] as string).length),
        startRow: row,
        endRow: row,
        containerStart: 0,
        containerEnd: lineCount - 1,
      });
    }
  }
  const all = lineAtoms.length === 0 ? candidates : candidates.concat(lineAtoms);
  // Final ids in order of first owned row.
  const finalId = new Int32Array(all.length).fill(-1);
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
    const candidate = all[order[id] as number] as Candidate;
    atomTypes[id] = candidate.type;
    atomKinds[id] = candidate.type === "line" ? 1 : 0;
    atomStartLine[id] = candidate.startRow + 1;
    atomEndLine[id] = candidate.endRow + 1;
    containerStart[id] = candidate.containerStart + 1;
    containerEnd[id] = candidate.containerEnd + 1;
    startPosition[id] = candidate.start;
    endPosition[id] = candidate.end;
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
  if (source.binary) return assemble(base, [], new Uint8Array(0), [], undefined);
  const lines = splitLines(source.text);
  return assemble(base, lines, significance(lines, []), [], undefined);
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
  const walked = walkTree(tree, spec, definitionTypes.definitions, definitionTypes.packageType);
  const flags = significance(lines, walked.comments);
  const candidates: Candidate[] = walked.children.map((child) => {
    // Indentation-based grammars (Scala 3) end a node at the next line's first token:
    // that line is not the node's.
    let endRow = child.endRow;
    if (endRow > child.startRow && (lines[endRow] ?? "").slice(0, child.endColumn).trim() === "")
      endRow--;
    return {
      type: child.type,
      start: key(child.startRow, child.startColumn),
      end: key(child.endRow, child.endColumn),
      startRow: child.startRow,
      endRow,
      containerStart: child.containerStart,
      containerEnd: child.containerEnd,
    };
  });
  // Pre-order: by start, outer (longer) first, so nested atoms overwrite their rows.
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  let errorRows: Uint8Array | undefined;
  if (walked.errors.length > 0) {
    errorRows = new Uint8Array(lines.length);
    for (const error of walked.errors) {
      const last = Math.min(error.endRow, lines.length - 1);
      for (let row = error.startRow; row <= last; row++) errorRows[row] = 1;
    }
  }
  const index = assemble(
    emptyIndex(source, language, "parsed"),
    lines,
    flags,
    candidates,
    errorRows,
  );
  index.definitions = collectDefinitions(language, walked.definitions, walked.packageNode, lines);
  return index;
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
