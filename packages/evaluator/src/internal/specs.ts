import type { Language } from "@distdebug/schema";

/** How a container's atoms are picked among its named children. */
export interface ContainerSpec {
  /** Only the children in these fields are atoms (Scala `case_clause`: its `body`). */
  fields?: readonly string[];
  /** Children in these fields are not atoms (a preprocessor condition, a `case` value). */
  exclude?: readonly string[];
}

/** The syntax facts the atom index needs about one grammar. */
export interface LanguageSpec {
  /** Container node types (their named children are atoms). */
  containers: Readonly<Record<string, ContainerSpec>>;
  /** Comment node types (their rows are not significant). */
  comments: readonly string[];
}

const cFamily: Record<string, ContainerSpec> = {
  translation_unit: {},
  compound_statement: {},
  declaration_list: {},
  field_declaration_list: {},
  case_statement: { exclude: ["value"] },
  preproc_if: { exclude: ["condition"] },
  preproc_ifdef: { exclude: ["name"] },
  preproc_elif: { exclude: ["condition"] },
  preproc_elifdef: { exclude: ["name"] },
  preproc_else: {},
};

/**
 * Containers per language, checked against each grammar's `src/node-types.json` by a test.
 * Beyond EVALUATOR.md: Java `enum_body` (enum constants) and `annotation_type_body`; Scala
 * `case_block`/`indented_cases` (the case clauses) and `case_clause` (its body statements);
 * lambda and closure bodies are `block`s already in every grammar (Go `func_literal`,
 * Java lambdas, Rust closures, C++ lambdas all have a block body), so they need no entry.
 * Go `block` is left out on purpose: its one child is the `statement_list` container.
 */
export const LANGUAGE_SPECS: Readonly<Record<Language, LanguageSpec>> = {
  java: {
    containers: {
      program: {},
      block: {},
      constructor_body: {},
      class_body: {},
      interface_body: {},
      enum_body: {},
      enum_body_declarations: {},
      annotation_type_body: {},
      switch_block_statement_group: {},
      switch_rule: {},
    },
    comments: ["line_comment", "block_comment"],
  },
  go: {
    containers: { source_file: {}, statement_list: {} },
    comments: ["comment"],
  },
  rust: {
    containers: { source_file: {}, block: {}, declaration_list: {}, match_block: {} },
    comments: ["line_comment", "block_comment"],
  },
  python: {
    containers: { module: {}, block: {} },
    comments: ["comment"],
  },
  cpp: { containers: cFamily, comments: ["comment"] },
  c: { containers: cFamily, comments: ["comment"] },
  scala: {
    containers: {
      compilation_unit: {},
      template_body: {},
      block: {},
      indented_block: {},
      case_block: {},
      indented_cases: {},
      case_clause: { fields: ["body"] },
    },
    comments: ["comment", "block_comment"],
  },
};
