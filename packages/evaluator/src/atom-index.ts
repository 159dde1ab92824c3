import type { LanguageChoice } from "./languages.js";

/** One atom: a statement-level syntax node (or one line, in the fallback) and the lines it owns. */
export interface Atom {
  /** Position in the file's atom list, ordered by first owned line. */
  id: number;
  /** `syntax`: a named child of a container; `line`: one significant line (fallback). */
  kind: "syntax" | "line";
  /** The tree-sitter node type, or `line`. */
  type: string;
  /** First and last line of the node (1-based, inclusive); nested atoms may own some of them. */
  startLine: number;
  endLine: number;
  /** The significant lines it owns (1-based, ascending); never empty. */
  lines: number[];
}

/** Why a file has no syntax atoms, or how it was read. */
export type AtomIndexStatus = "parsed" | "text" | "binary";

/**
 * The atoms of one file at the buggy revision: they partition the file's significant lines.
 * Returned by `evaluator.atoms(path)` for tools and label review.
 */
export interface AtomIndex {
  path: string;
  language: LanguageChoice;
  status: AtomIndexStatus;
  /** Number of lines of the file. */
  lineCount: number;
  /** Number of significant lines (lines with a token that is not a comment or lone punctuation). */
  significantLines: number;
  atoms: Atom[];
  /** Lines inside ERROR regions of the parse, scored as line atoms. */
  unparsableLines: number[];
  /** The file was not valid UTF-8 (read with U+FFFD replacements). */
  invalidUtf8: boolean;
  /** A byte order mark was dropped. */
  bom: boolean;
}

/** A named definition of a file (class, method, function, type...), for tools and label review. */
export interface Definition {
  /** The name a `symbol` block can use: `pkg.Class.method`, `module::Type::method`. */
  qualifiedName: string;
  /** The tree-sitter node type, for example `method_declaration` or `function_item`. */
  kind: string;
  /** A function, method or constructor (not a class, type, module or macro). */
  callable: boolean;
  /** First and last line (1-based, inclusive), decorators and template headers included. */
  startLine: number;
  endLine: number;
}
