import type { DiagnosisBlock, ScoreWarning } from "@distdebug/schema";
import { type FileIndex, lineCountOfAtom, linesOfAtom } from "./build-index.js";
import { type FileStore, KEY_SCALE, type LoadedFile } from "./file-store.js";
import { POSITION_SCALE } from "./positions.js";
import { nameParts } from "./symbols.js";

type WarningCode = ScoreWarning["code"];

/** A warning before it gets its span index. */
export interface SpanWarning {
  code: WarningCode;
  message: string;
  path?: string;
}

/** A predicted span resolved to atoms. */
export interface ResolvedSpan {
  kind: "lines" | "symbol" | "file";
  path: string | null;
  definitions: { path: string; qualifiedName: string; startLine: number; endLine: number }[];
  /** Atom keys (`file * 2^24 + atom id`), ascending, no duplicates. */
  atoms: number[];
  /** Significant rows owned by each atom (parallel to `atoms`). */
  atomRows: number[];
  /** Significant rows owned by those atoms. */
  rows: number;
  /** Raw named rows (keys `file * 2^24 + line`), not snapped. */
  namedRows: number[];
  /** Files it names (repository paths). */
  files: string[];
  phantom: number;
  warnings: SpanWarning[];
}

/** Atom ids owning the significant lines of `[start, end]`, or the snapped neighbour. */
export function atomsOfRange(
  index: FileIndex,
  start: number,
  end: number,
): { ids: number[]; snapped: boolean } {
  const ids = new Set<number>();
  const last = Math.min(end, index.lineCount);
  for (let line = Math.max(1, start); line <= last; line++) {
    const owner = index.owner[line] as number;
    if (owner >= 0) ids.add(owner);
  }
  if (ids.size > 0) return { ids: [...ids].sort((a, b) => a - b), snapped: false };
  // Only blank or comment rows: the nearest atom of the tightest container, the following
  // one first. The previous atom qualifies only if its container goes on past the range.
  const width = (id: number) =>
    (index.containerEnd[id] as number) - (index.containerStart[id] as number);
  let next = -1;
  for (let line = last + 1; line <= index.lineCount; line++) {
    const owner = index.owner[line] as number;
    if (owner >= 0) {
      next = owner;
      break;
    }
  }
  let previous = -1;
  for (let line = Math.min(start - 1, index.lineCount); line >= 1; line--) {
    const owner = index.owner[line] as number;
    if (owner >= 0) {
      if ((index.containerEnd[owner] as number) >= last) previous = owner;
      break;
    }
  }
  const options = [next, previous].filter((id) => id >= 0);
  if (options.length === 0) return { ids: [], snapped: true };
  const best = options.reduce((a, b) => (width(b) < width(a) ? b : a));
  return { ids: [best], snapped: true };
}

function addAtoms(span: ResolvedSpan, file: LoadedFile, ids: number[]): void {
  const base = file.number * KEY_SCALE;
  for (const id of ids) {
    const rows = lineCountOfAtom(file.index, id);
    span.atoms.push(base + id);
    span.atomRows.push(rows);
    span.rows += rows;
  }
}

function significantRowKeys(file: LoadedFile, start: number, end: number): number[] {
  const base = file.number * KEY_SCALE;
  const result: number[] = [];
  const last = Math.min(end, file.index.lineCount);
  for (let line = Math.max(1, start); line <= last; line++)
    if ((file.index.owner[line] as number) >= 0) result.push(base + line);
  return result;
}

function unreadable(file: LoadedFile): SpanWarning | undefined {
  if (file.index.status === "binary")
    return {
      code: "binary-file",
      message: `${file.path}: a binary file, it has no atoms`,
      path: file.path,
    };
  if (file.index.significantLines === 0)
    return {
      code: "no-atoms",
      message: `${file.path}: the file has no significant lines`,
      path: file.path,
    };
  return undefined;
}

function empty(kind: ResolvedSpan["kind"], path: string | null): ResolvedSpan {
  return {
    kind,
    path,
    definitions: [],
    atoms: [],
    atomRows: [],
    rows: 0,
    namedRows: [],
    files: [],
    phantom: 0,
    warnings: [],
  };
}

/** Context of span resolution: the file store and the paths a bare symbol is looked up in. */
export interface ResolveContext {
  store: FileStore;
  /** The files a symbol without a path is looked up in, by its last name part. */
  symbolPaths: (lastPart: string) => Promise<string[]>;
}

function resolveSymbol(
  span: ResolvedSpan,
  parts: readonly string[],
  files: LoadedFile[],
  store: FileStore,
): void {
  const ids = new Map<LoadedFile, Set<number>>();
  for (const file of files) {
    const index = file.index;
    for (const definition of store.symbolsOf(file)?.match(parts) ?? []) {
      span.definitions.push({
        path: file.path,
        qualifiedName: definition.qualifiedName,
        startLine: definition.startLine,
        endLine: definition.endLine,
      });
      let set = ids.get(file);
      if (!set) {
        set = new Set();
        ids.set(file, set);
      }
      // An atom inside the definition owns a line of it: look only at the owners of its lines.
      const last = Math.min(Math.floor(definition.end / POSITION_SCALE) + 1, index.lineCount);
      for (let line = Math.floor(definition.start / POSITION_SCALE) + 1; line <= last; line++) {
        const id = index.owner[line] as number;
        if (
          id >= 0 &&
          (index.startPosition[id] as number) >= definition.start &&
          (index.endPosition[id] as number) <= definition.end
        )
          set.add(id);
      }
    }
  }
  for (const [file, set] of ids) {
    const sorted = [...set].sort((a, b) => a - b);
    addAtoms(span, file, sorted);
    const base = file.number * KEY_SCALE;
    for (const id of sorted)
      for (const line of linesOfAtom(file.index, id)) span.namedRows.push(base + line);
    span.files.push(file.path);
  }
}

function describePath(resolution: { status: string; path: string; message?: string }, raw: string) {
  if (resolution.status === "outside")
    return {
      code: "path-outside-repository" as const,
      message: `${raw}: outside the repository; counted as one false-positive atom`,
      path: raw,
    };
  return {
    code: "missing-file" as const,
    message: `${raw}: no such file at the buggy revision${resolution.message ? ` (${resolution.message})` : ""}; counted as one false-positive atom`,
    path: raw,
  };
}

/**
 * Resolves one predicted block: lines (with snapping), a symbol (all matching definitions),
 * or a whole file. Anything it cannot resolve is a warning and one phantom atom.
 */
export async function resolveSpan(
  block: DiagnosisBlock,
  context: ResolveContext,
): Promise<ResolvedSpan> {
  const { store } = context;
  const hasLines = block.startLine !== undefined;
  const kind = hasLines ? "lines" : block.symbol !== undefined ? "symbol" : "file";
  let file: LoadedFile | undefined;
  if (block.path !== undefined) {
    const resolution = await store.resolve(block.path);
    if (resolution.status !== "file") {
      const span = empty(kind, null);
      span.warnings.push(describePath(resolution, block.path));
      span.phantom = 1;
      return span;
    }
    file = resolution.file;
  }
  const span = empty(kind, file ? file.path : null);
  if (file) {
    span.files.push(file.path);
    const problem = unreadable(file);
    if (problem) {
      span.warnings.push(problem);
      span.phantom = 1;
      return span;
    }
    if (file.index.invalidUtf8)
      span.warnings.push({
        code: "invalid-utf8",
        message: `${file.path}: not valid UTF-8; read with replacement characters`,
        path: file.path,
      });
    if (file.index.unparsableLines.length > 0)
      span.warnings.push({
        code: "unparsable-region",
        message: `${file.path}: ${file.index.unparsableLines.length} line(s) the grammar cannot parse are scored as line atoms`,
        path: file.path,
      });
  }
  if (hasLines && file) {
    let start = block.startLine as number;
    let end = block.endLine ?? start;
    if (end < start) {
      span.warnings.push({
        code: "lines-reversed",
        message: `${file.path}: lines ${start}-${end} are reversed; read as ${end}-${start}`,
        path: file.path,
      });
      [start, end] = [end, start];
    }
    const lineCount = file.index.lineCount;
    if (end > lineCount) {
      span.warnings.push({
        code: "lines-out-of-range",
        message: `${file.path}: lines ${start}-${end} go past the end of the file (${lineCount} lines); counted as one false-positive atom`,
        path: file.path,
      });
      span.phantom = 1;
      if (start > lineCount) return span;
      end = lineCount;
    }
    const { ids, snapped } = atomsOfRange(file.index, start, end);
    if (snapped)
      span.warnings.push({
        code: "blank-range-snapped",
        message:
          ids.length > 0
            ? `${file.path}: lines ${start}-${end} hold only blank or comment lines; snapped to the atom at line ${linesOfAtom(file.index, ids[0] as number)[0]}`
            : `${file.path}: lines ${start}-${end} hold only blank or comment lines and no atom is near`,
        path: file.path,
      });
    addAtoms(span, file, ids);
    span.namedRows = significantRowKeys(file, start, end);
    return span;
  }
  if (block.symbol !== undefined) {
    // Split once per block (linear in its length), then matched in every file searched.
    const parts = nameParts(block.symbol);
    const lastPart = parts[parts.length - 1];
    let files: LoadedFile[] = [];
    if (file) files = [file];
    else if (lastPart !== undefined)
      for (const path of await context.symbolPaths(lastPart)) {
        const resolution = await store.load(path);
        if (resolution.status === "file") files.push(resolution.file);
      }
    resolveSymbol(span, parts, files, store);
    if (span.definitions.length === 0) {
      span.warnings.push({
        code: "unknown-symbol",
        message: `${block.symbol}: no definition of that name${file ? ` in ${file.path}` : " in the repository"}; counted as one false-positive atom`,
        ...(file ? { path: file.path } : {}),
      });
      span.phantom = 1;
      span.files = file ? [file.path] : [];
    } else if (!file && span.files.length > 1) {
      span.warnings.push({
        code: "ambiguous-symbol",
        message: `${block.symbol}: defined in ${span.files.length} files (${span.files.join(", ")}); all of them are counted`,
      });
    }
    return span;
  }
  if (file) {
    addAtoms(
      span,
      file,
      Array.from({ length: file.index.atomCount }, (_, id) => id),
    );
    span.namedRows = significantRowKeys(file, 1, file.index.lineCount);
  }
  return span;
}
