import type { Language } from "@distdebug/schema";
import Parser from "tree-sitter";
import type { Atom, AtomIndex, AtomIndexStatus } from "../atom-index.js";
import { grammarOf, type LanguageChoice } from "../languages.js";
import { POSITION_SCALE } from "./positions.js";
import { LANGUAGE_SPECS } from "./specs.js";
import { collectDefinitions, definitionNodeTypes, type RawDefinitions } from "./symbols.js";
import { type DecodedSource, isSignificantText, splitLines } from "./text.js";

export { POSITION_SCALE } from "./positions.js";

/** The atom index plus the arrays the scorer reads (internal). */
export interface FileIndex {
  language: LanguageChoice;
  status: AtomIndexStatus;
  text: string;
  lineCount: number;
  /** Owner atom id by line (1-based; index 0 unused); -1 for an insignificant line. */
  owner: Int32Array;
  significantLines: number;
  atoms: Omit<Atom, "id">[];
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

// node-tree-sitter marshals a node's start (byte offset, row, column in UTF-16 bytes) into the
// node object's slots 2..4; reading them saves a native call per node. Checked once at load.
interface RawNode {
  [slot: number]: number;
}
let rawSlots: boolean | undefined;
function startOf(node: Parser.SyntaxNode): { row: number; column: number } {
  if (rawSlots === undefined) {
    const raw = node as unknown as RawNode;
    const position = node.startPosition;
    rawSlots =
      typeof raw[3] === "number" && raw[3] === position.row && raw[4] === position.column * 2;
  }
  if (rawSlots) {
    const raw = node as unknown as RawNode;
    return { row: raw[3] as number, column: (raw[4] as number) / 2 };
  }
  return node.startPosition;
}

function key(row: number, column: number): number {
  return row * POSITION_SCALE + column;
}

/** Significant-line flags (by 0-based row) with the comment ranges blanked out. */
function significance(lines: string[], comments: Parser.SyntaxNode[]): Uint8Array {
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
    const start = startOf(comment);
    const end = comment.endPosition;
    if (end.row === start.row) addMask(start.row, start.column, end.column);
    else {
      addMask(start.row, start.column, Number.POSITIVE_INFINITY);
      for (let row = start.row + 1; row < end.row; row++) flags[row] = 0;
      addMask(end.row, 0, end.column);
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
    text: source.text,
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
  const owned: number[][] = [];
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
      owned.push([]);
    }
    (owned[id] as number[]).push(row + 1);
    owner[row + 1] = id;
  }
  const count = order.length;
  const containerStart = new Int32Array(count);
  const containerEnd = new Int32Array(count);
  const startPosition = new Float64Array(count);
  const endPosition = new Float64Array(count);
  const atoms: Omit<Atom, "id">[] = new Array(count);
  for (let id = 0; id < count; id++) {
    const candidate = all[order[id] as number] as Candidate;
    const isLine = candidate.type === "line";
    atoms[id] = {
      kind: isLine ? "line" : "syntax",
      type: candidate.type,
      startLine: candidate.startRow + 1,
      endLine: candidate.endRow + 1,
      lines: owned[id] as number[],
    };
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
    atoms,
    containerStart,
    containerEnd,
    startPosition,
    endPosition,
    unparsableLines,
  };
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
    index.unparsableLines = index.atoms.flatMap((atom) => atom.lines);
    return index;
  }
  const root = tree.rootNode;
  const containerTypes = Object.keys(spec.containers);
  const commentTypes = new Set(spec.comments);
  const definitionTypes = definitionNodeTypes(language);
  const definitionSet = new Set(definitionTypes.definitions);
  const nodes = root.descendantsOfType([
    ...containerTypes,
    ...spec.comments,
    "ERROR",
    ...definitionTypes.definitions,
    ...(definitionTypes.packageType ? [definitionTypes.packageType] : []),
  ]);
  const comments: Parser.SyntaxNode[] = [];
  const containers: Parser.SyntaxNode[] = [];
  const errors: Parser.SyntaxNode[] = [];
  const definitionNodes: Parser.SyntaxNode[] = [];
  let packageNode: Parser.SyntaxNode | undefined;
  // descendantsOfType includes the root itself; a root that is all ERROR is an error region.
  if (root.type === "ERROR") errors.push(root);
  for (const node of nodes) {
    const type = node.type;
    if (commentTypes.has(type)) comments.push(node);
    else if (type === "ERROR") errors.push(node);
    else if (definitionSet.has(type)) definitionNodes.push(node);
    else if (type === definitionTypes.packageType) packageNode ??= node;
    else containers.push(node);
  }
  const flags = significance(lines, comments);
  const candidates: Candidate[] = [];
  for (const container of containers) {
    const containerSpec = spec.containers[container.type] ?? {};
    const containerStart = startOf(container).row;
    const containerEnd = container.endPosition.row;
    let children: Parser.SyntaxNode[];
    if (containerSpec.fields) {
      children = containerSpec.fields.flatMap((field) => container.childrenForFieldName(field));
    } else {
      // Walking siblings is much cheaper than `namedChildren` in node-tree-sitter 0.25.
      children = [];
      for (let child = container.firstNamedChild; child; child = child.nextNamedSibling)
        children.push(child);
      if (containerSpec.exclude) {
        const excluded = new Set<number>();
        for (const field of containerSpec.exclude) {
          const child = container.childForFieldName(field);
          if (child) excluded.add(key(startOf(child).row, startOf(child).column));
        }
        children = children.filter((child) => {
          const start = startOf(child);
          return !excluded.has(key(start.row, start.column));
        });
      }
    }
    for (const child of children) {
      const type = child.type;
      if (commentTypes.has(type) || type === "ERROR") continue;
      const start = startOf(child);
      const end = child.endPosition;
      if (start.row === end.row && start.column === end.column) continue;
      // Indentation-based grammars (Scala 3) end a node at the next line's first token:
      // that line is not the node's.
      let endRow = end.row;
      if (endRow > start.row && (lines[endRow] ?? "").slice(0, end.column).trim() === "") endRow--;
      candidates.push({
        type,
        start: key(start.row, start.column),
        end: key(end.row, end.column),
        startRow: start.row,
        endRow,
        containerStart,
        containerEnd,
      });
    }
  }
  // Pre-order: by start, outer (longer) first, so nested atoms overwrite their rows.
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  let errorRows: Uint8Array | undefined;
  if (errors.length > 0) {
    errorRows = new Uint8Array(lines.length);
    for (const error of errors) {
      const last = Math.min(error.endPosition.row, lines.length - 1);
      for (let row = startOf(error).row; row <= last; row++) errorRows[row] = 1;
    }
  }
  const index = assemble(
    emptyIndex(source, language, "parsed"),
    lines,
    flags,
    candidates,
    errorRows,
  );
  index.definitions = collectDefinitions(language, definitionNodes, packageNode, lines);
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
    atoms: index.atoms.map((atom, id) => ({ id, ...atom })),
    unparsableLines: index.unparsableLines,
    invalidUtf8: index.invalidUtf8,
    bom: index.bom,
  };
}
