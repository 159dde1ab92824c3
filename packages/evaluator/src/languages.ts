import { createRequire } from "node:module";
import type { Language } from "@distdebug/schema";
import { type Parser, TREE_SITTER_VERSION } from "./internal/tree-sitter.js";

const require = createRequire(import.meta.url);

/** A language the evaluator parses, or `"text"` for line atoms. */
export type LanguageChoice = Language | "text";

/**
 * File extension (lower case, with the dot) to language. `.h` is C++ unless a caller maps it
 * to `"c"`; extensions not listed fall back to line atoms.
 *
 * @example
 * ```ts
 * createEvaluator({ readFile, languages: { ".h": "c", ".pyx": "python" } }); // merged over these
 * ```
 */
export const DEFAULT_LANGUAGES: Readonly<Record<string, LanguageChoice>> = Object.freeze({
  ".java": "java",
  ".go": "go",
  ".rs": "rust",
  ".py": "python",
  ".pyi": "python",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".hh": "cpp",
  ".hxx": "cpp",
  ".h": "cpp",
  ".scala": "scala",
  ".sc": "scala",
  ".c": "c",
});

const grammarPackages: Record<Language, string> = {
  java: "tree-sitter-java",
  go: "tree-sitter-go",
  rust: "tree-sitter-rust",
  python: "tree-sitter-python",
  cpp: "tree-sitter-cpp",
  scala: "tree-sitter-scala",
  c: "tree-sitter-c",
};

/** The extension map in force: `languages` (for example `{ ".h": "c" }`) merged over {@link DEFAULT_LANGUAGES}. */
export function languageMap(
  languages?: Readonly<Record<string, LanguageChoice>>,
): Readonly<Record<string, LanguageChoice>> {
  return { ...DEFAULT_LANGUAGES, ...(languages ?? {}) };
}

/**
 * The language of a repository path by its extension, given a table (merged over
 * {@link DEFAULT_LANGUAGES} by the caller).
 *
 * @example
 * ```ts
 * languageOf("src/raft.go", DEFAULT_LANGUAGES); // "go"
 * languageOf("proto/x.proto", DEFAULT_LANGUAGES); // "text"
 * ```
 */
export function languageOf(
  path: string,
  table: Readonly<Record<string, LanguageChoice>> = DEFAULT_LANGUAGES,
): LanguageChoice {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "text";
  return table[name.slice(dot).toLowerCase()] ?? "text";
}

const grammars = new Map<Language, Parser.Language>();

/** The loaded tree-sitter grammar of a language (loaded once). */
export function grammarOf(language: Language): Parser.Language {
  let grammar = grammars.get(language);
  if (!grammar) {
    grammar = require(grammarPackages[language]) as Parser.Language;
    grammars.set(language, grammar);
  }
  return grammar;
}

function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/**
 * The versions of `tree-sitter` and of the seven grammar packages, sorted by package name.
 * They go into every `diagnosis_scores.json`. The runtime is named `tree-sitter`, its npm
 * package's own name, though the evaluator installs it under the alias `tree-sitter-runtime`.
 *
 * @example
 * ```ts
 * GRAMMAR_VERSIONS["tree-sitter-java"]; // "0.23.5"
 * ```
 */
export const GRAMMAR_VERSIONS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries([
    ["tree-sitter", TREE_SITTER_VERSION],
    ...Object.values(grammarPackages)
      .sort()
      .map((name) => [name, packageVersion(name)]),
  ]),
);
