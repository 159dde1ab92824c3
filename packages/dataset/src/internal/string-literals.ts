/**
 * String literals of source files, cut at their format placeholders: what a logging
 * statement can print, for matching the log lines of an incident's artifacts.
 */

/** One literal of the code: its constant text between placeholders, in order. */
export interface LiteralPattern {
  /** Constant pieces in the order they are printed; each holds at least one letter. */
  readonly segments: readonly string[];
  /** The longest piece: a line that lacks it cannot match. */
  readonly longest: string;
  /** Letters in all pieces together. */
  readonly letters: number;
  /** The literal as written (escapes kept), for a whole-message match. */
  readonly raw: string;
}

/** File extensions whose string literals are read (the evaluator's languages). */
export const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set([
  ".java",
  ".scala",
  ".go",
  ".rs",
  ".py",
  ".pyx",
  ".c",
  ".cc",
  ".cpp",
  ".cxx",
  ".h",
  ".hh",
  ".hpp",
]);

const DOUBLE_QUOTED = /"((?:[^"\\\n]|\\.)*)"/g;
const SINGLE_QUOTED = /'((?:[^'\\\n]|\\.)*)'/g;
const BACKTICK = /`([^`]*)`/g;

/**
 * Placeholders of the format languages the catalog's systems log with: printf and Go verbs
 * (`%s`, `%-5d`, `%+v`, `%(name)s`), slf4j and Rust (`{}`, `{:?}`, `{0}`), Python
 * `str.format` and f-strings (`{name}`, `{x!r:>8}`), Scala interpolation (`$offset`,
 * `${log.name}`), and escapes (`\n`, `\t`).
 */
const PLACEHOLDER =
  /%(?:\([^)]*\))?[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z%]|\$?\{[^{}]{0,80}\}|\$[A-Za-z_]\w*|\\[nrt"'\\]|\\u[0-9a-fA-F]{4}/g;

function letterCount(text: string): number {
  let count = 0;
  for (const char of text) if (/\p{L}/u.test(char)) count += 1;
  return count;
}

/** The constant pieces of one literal's text; undefined when it holds no letter. */
export function literalPattern(text: string): LiteralPattern | undefined {
  const segments = text
    .split(PLACEHOLDER)
    .map((segment) => segment.trim())
    .filter((segment) => /\p{L}/u.test(segment));
  if (segments.length === 0) return undefined;
  let longest = "";
  let letters = 0;
  for (const segment of segments) {
    if (segment.length > longest.length) longest = segment;
    letters += letterCount(segment);
  }
  return { segments, longest, letters, raw: text };
}

/**
 * Whether `message` is exactly what the literal prints, every placeholder standing for some
 * text: a format with little constant text (`==> %s:%d '%s' is not true`) still explains a
 * message it produces whole.
 */
export function printsWhole(pattern: LiteralPattern, message: string): boolean {
  const pieces = pattern.raw
    .split(PLACEHOLDER)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (pieces.length < 2) return false;
  return new RegExp(`^\\s*${pieces.join(".+?")}\\s*$`, "s").test(message);
}

function extensionOf(path: string): string {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  return dot > slash ? path.slice(dot).toLowerCase() : "";
}

/** Whether a file's string literals are read (by its extension). */
export function isSourcePath(path: string): boolean {
  return SOURCE_EXTENSIONS.has(extensionOf(path));
}

/** Adds the literals of one source file to `into` (raw text, deduplicated by the set). */
export function collectLiterals(path: string, text: string, into: Set<string>): void {
  const extension = extensionOf(path);
  const patterns = [DOUBLE_QUOTED];
  if (extension === ".py" || extension === ".pyx") patterns.push(SINGLE_QUOTED);
  if (extension === ".go" || extension === ".scala") patterns.push(BACKTICK);
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const body = match[1] ?? "";
      if (body.length >= 3 && /\p{L}/u.test(body)) into.add(body);
    }
  }
}

/** Letters of a text (any script), to weigh how much of a message a literal explains. */
export function lettersOf(text: string): number {
  return letterCount(text);
}

/**
 * Whether the literal's pieces occur in `line` in order (placeholders stand for anything).
 */
export function matchesInOrder(pattern: LiteralPattern, line: string): boolean {
  let from = 0;
  for (const segment of pattern.segments) {
    const at = line.indexOf(segment, from);
    if (at < 0) return false;
    from = at + segment.length;
  }
  return true;
}
