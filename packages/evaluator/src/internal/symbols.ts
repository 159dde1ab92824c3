import type { Language } from "@distdebug/schema";
import { POSITION_SCALE } from "./positions.js";
import { detach } from "./text.js";

/**
 * The part of a syntax node that definitions are read from: a tree-sitter `SyntaxNode`, or a
 * lighter view of one (see `native-node.ts`).
 */
export interface DefinitionNode {
  readonly type: string;
  readonly text: string;
  readonly startPosition: { row: number; column: number };
  readonly endPosition: { row: number; column: number };
  readonly parent: DefinitionNode | null;
  readonly namedChildren: DefinitionNode[];
  childForFieldName(name: string): DefinitionNode | null;
  /**
   * The text of the child in field `name`, when known without asking the tree (`null`: there
   * is none); `undefined` means ask `childForFieldName`.
   */
  readonly nameText?: string | null | undefined;
  /**
   * The text at the end of the node's declarator chain (see `declaratorName`), when known
   * without asking the tree (`null`: the chain has no name); `undefined` means ask.
   */
  readonly declaratorText?: string | null | undefined;
}

/** The text of a node's `name` field child. */
function nameText(node: DefinitionNode): string | undefined {
  const known = node.nameText;
  if (known !== undefined) return known ?? undefined;
  return node.childForFieldName("name")?.text;
}

/** One definition of a file with its qualified name parts. */
export interface SymbolDefinition {
  /** Qualified name parts, outermost first (package or module parts included). */
  components: string[];
  /** The parts joined with the language's separator (`.` or `::`). */
  qualifiedName: string;
  /** Node type of the definition, for example `method_declaration`. */
  kind: string;
  startLine: number;
  endLine: number;
  /** Start and end as position keys (row * 1e8 + column), including decorators or templates. */
  start: number;
  end: number;
}

const definitionTypes: Record<Language, readonly string[]> = {
  java: [
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
    "method_declaration",
    "constructor_declaration",
    "compact_constructor_declaration",
  ],
  go: ["function_declaration", "method_declaration", "type_spec"],
  rust: [
    "mod_item",
    "struct_item",
    "enum_item",
    "union_item",
    "trait_item",
    "type_item",
    "impl_item",
    "function_item",
    "function_signature_item",
    "macro_definition",
  ],
  python: ["class_definition", "function_definition"],
  cpp: [
    "namespace_definition",
    "class_specifier",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "function_definition",
    "preproc_def",
    "preproc_function_def",
  ],
  c: [
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "function_definition",
    "preproc_def",
    "preproc_function_def",
  ],
  scala: [
    "object_definition",
    "class_definition",
    "trait_definition",
    "enum_definition",
    "function_definition",
  ],
};

/** Definition node types of functions, methods and constructors (in every language). */
const CALLABLE_TYPES: ReadonlySet<string> = new Set([
  "method_declaration",
  "constructor_declaration",
  "compact_constructor_declaration",
  "function_declaration",
  "function_item",
  "function_definition",
]);

/** Is a definition of this node type a function, method or constructor? */
export function isCallable(kind: string): boolean {
  return CALLABLE_TYPES.has(kind);
}

const packageTypes: Partial<Record<Language, string>> = {
  java: "package_declaration",
  go: "package_clause",
  scala: "package_clause",
};

const separator: Record<Language, string> = {
  java: ".",
  go: ".",
  rust: "::",
  python: ".",
  cpp: "::",
  c: "::",
  scala: ".",
};

const plainIdentifier = /^[A-Za-z_$][\w$]*$/;

/**
 * Splits a written name (`a::b<T>::c`, `(*T)`, `pkg.Type`) into plain identifiers, in time
 * linear in its length: Go receivers `.(*T).` become `.T.`, matched `<...>` and `[...]` (nested)
 * and `(...)` parameter lists are dropped, then `* &` and white space, and the rest is split at
 * `::`, `.`, `#` and `/`.
 */
export function nameParts(text: string): string[] {
  // Most names are one plain identifier, which every step below leaves as it is.
  if (plainIdentifier.test(text)) return [text];
  const kept = withoutParameterLists(withoutTypeArguments(withoutGoReceivers(text)));
  return kept
    .replace(/[*&\s]/g, "")
    .split(/::|\.|#|\//)
    .filter((part) => part !== "");
}

const identifierStart = /[A-Za-z_$]/;
const identifierPart = /[\w$]/;
const space = /\s/;

/**
 * A forward search for one character that never looks at a character twice across calls
 * with growing `from` (the last answer is kept while it lies ahead).
 */
function forwardFinder(text: string, char: string): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found === -1 || found >= from) return found;
    found = text.indexOf(char, from);
    return found;
  };
}

/** `raft.(*node).Step` -> `raft.node.Step`: a parenthesized receiver between dots. */
function withoutGoReceivers(text: string): string {
  if (!text.includes("(")) return text;
  const closingBracket = forwardFinder(text, "]");
  let out = "";
  let at = 0;
  while (at < text.length) {
    const receiver =
      text[at] === "(" && (at === 0 || text[at - 1] === ".")
        ? goReceiverAt(text, at, closingBracket)
        : undefined;
    if (receiver) {
      out += receiver.name;
      at = receiver.end;
    } else out += text[at++];
  }
  return out;
}

/** `(\s*\*?\s*Name([...])?\s*)` followed by `.`, read from `at` (the parenthesis). */
function goReceiverAt(
  text: string,
  at: number,
  closingBracket: (from: number) => number,
): { name: string; end: number } | undefined {
  let i = at + 1;
  while (i < text.length && space.test(text[i] as string)) i++;
  if (text[i] === "*") i++;
  while (i < text.length && space.test(text[i] as string)) i++;
  const start = i;
  if (!identifierStart.test(text[i] ?? "")) return undefined;
  while (i < text.length && identifierPart.test(text[i] as string)) i++;
  const name = text.slice(start, i);
  if (text[i] === "[") {
    const close = closingBracket(i);
    if (close >= 0) i = close + 1;
  }
  while (i < text.length && space.test(text[i] as string)) i++;
  if (text[i] !== ")" || text[i + 1] !== ".") return undefined;
  return { name, end: i + 1 };
}

/** Drops matched `<...>` and `[...]` with everything inside (nested pairs too). */
function withoutTypeArguments(text: string): string {
  if (!/[<[]/.test(text)) return text;
  const depth = new Int32Array(text.length + 1);
  const angles: number[] = [];
  const squares: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === "<") angles.push(at);
    else if (char === "[") squares.push(at);
    else if (char === ">" || char === "]") {
      const open = (char === ">" ? angles : squares).pop();
      if (open === undefined) continue;
      depth[open] = (depth[open] as number) + 1;
      depth[at + 1] = (depth[at + 1] as number) - 1;
    }
  }
  let out = "";
  let inside = 0;
  for (let at = 0; at < text.length; at++) {
    inside += depth[at] as number;
    if (inside === 0) out += text[at];
  }
  return out;
}

/** Drops each `(` with everything up to the next `)` (a parameter list). */
function withoutParameterLists(text: string): string {
  if (!text.includes("(")) return text;
  const closing = forwardFinder(text, ")");
  let out = "";
  let at = 0;
  while (at < text.length) {
    const close = text[at] === "(" ? closing(at) : -1;
    if (close >= 0) at = close + 1;
    else out += text[at++];
  }
  return out;
}

function modulePrefix(language: Language, path: string): string[] {
  if (language !== "python" && language !== "rust") return [];
  const withoutExtension = path.replace(/\.(pyi?|rs)$/, "");
  let parts = withoutExtension.split("/").filter((part) => part !== "" && part !== ".");
  if (language === "python") return parts.filter((part) => part !== "__init__");
  const source = parts.lastIndexOf("src");
  if (source >= 0) parts = parts.slice(source + 1);
  return parts.filter((part) => part !== "lib" && part !== "main" && part !== "mod");
}

/** Node types that end a C or C++ declarator chain: the name of what it declares. */
export const DECLARATOR_NAME_TYPES: readonly string[] = [
  "identifier",
  "field_identifier",
  "qualified_identifier",
  "destructor_name",
  "operator_name",
  "template_function",
  "type_identifier",
];

/** The name at the end of a declarator chain (followed through `declarator` fields). */
function declaratorName(node: DefinitionNode | null): string | undefined {
  let current = node;
  for (let depth = 0; current && depth < 12; depth++) {
    if (DECLARATOR_NAME_TYPES.includes(current.type)) return current.text;
    current = current.childForFieldName("declarator");
  }
  return undefined;
}

/** The name a C or C++ function definition declares. */
function functionDeclaratorName(node: DefinitionNode): string | undefined {
  const known = node.declaratorText;
  if (known !== undefined) return known ?? undefined;
  return declaratorName(node.childForFieldName("declarator"));
}

function definitionName(language: Language, node: DefinitionNode): string | undefined {
  switch (node.type) {
    case "impl_item": {
      const type = node.childForFieldName("type");
      return type ? nameParts(type.text).at(-1) : undefined;
    }
    case "function_definition":
      if (language === "c" || language === "cpp") return functionDeclaratorName(node);
      return nameText(node);
    case "method_declaration":
      if (language === "go") {
        const receiver = node.childForFieldName("receiver");
        const parameter = receiver?.namedChildren.find((c) => c.type === "parameter_declaration");
        const type = parameter?.childForFieldName("type");
        const name = nameText(node);
        const owner = type ? nameParts(type.text).at(-1) : undefined;
        return name === undefined ? undefined : owner ? `${owner}.${name}` : name;
      }
      return nameText(node);
    case "namespace_definition":
      return nameText(node);
    case "class_specifier":
    case "struct_specifier":
    case "union_specifier":
    case "enum_specifier":
      if (!node.childForFieldName("body")) return undefined;
      return nameText(node);
    default:
      return nameText(node);
  }
}

/** Node types that wrap a definition (decorators, a template header) and belong to its range. */
export const WRAPPER_TYPES: readonly string[] = ["decorated_definition", "template_declaration"];

function wrapperOf(language: Language, node: DefinitionNode): DefinitionNode {
  if (language === "python" || language === "cpp") {
    const parent = node.parent;
    if (parent && WRAPPER_TYPES.includes(parent.type)) return parent;
  }
  return node;
}

/**
 * One definition before qualification. Its name parts are joined with `\n` (never part of a
 * name) into one string of its own: one small string per definition is what a cached index
 * keeps, not an array of strings cut from the file's text.
 */
export interface RawDefinition {
  /** Name parts joined with `\n`; empty for a definition without a name. */
  name: string;
  kind: string;
  /** Start and end as position keys. */
  start: number;
  end: number;
  /** First and last line (1-based). */
  startLine: number;
  endLine: number;
}

/** Definitions of a file before the path-dependent module prefix is known. */
export interface RawDefinitions {
  /** The package of the file (Java, Go, Scala), when it declares one. */
  packageParts: string[] | undefined;
  /** Definitions sorted by start (outer first), with their own name parts. */
  items: RawDefinition[];
}

/** The definition node types of a language, and its package clause type (if any). */
export function definitionNodeTypes(language: Language): {
  definitions: readonly string[];
  packageType: string | undefined;
} {
  return { definitions: definitionTypes[language], packageType: packageTypes[language] };
}

/** Names and ranges of the definition nodes of a parsed file (lines: for end-line trimming). */
export function collectDefinitions(
  language: Language,
  nodes: DefinitionNode[],
  packageNode: DefinitionNode | undefined,
  lines: string[],
  /** The wrapper of a definition, when the caller knows them all: no `parent` lookups. */
  wrappers?: ReadonlyMap<DefinitionNode, DefinitionNode>,
): RawDefinitions {
  let packageParts: string[] | undefined;
  if (packageNode) {
    const name = packageNode.namedChildren.find((child) => !child.type.includes("comment"));
    if (name) packageParts = nameParts(name.text).map(detach);
  }
  const items: RawDefinitions["items"] = [];
  for (const node of nodes) {
    const name = definitionName(language, node);
    const outer = wrappers ? (wrappers.get(node) ?? node) : wrapperOf(language, node);
    const start = outer.startPosition;
    const end = outer.endPosition;
    let endRow = end.row;
    // A definition that ends in the next line's indentation (Scala 3, a macro's newline) ends
    // on the line before.
    if (endRow > start.row && (lines[endRow] ?? "").slice(0, end.column).trim() === "") endRow--;
    items.push({
      name: name === undefined ? "" : detach(nameParts(name).join("\n")),
      kind: node.type,
      start: start.row * POSITION_SCALE + start.column,
      end: end.row * POSITION_SCALE + end.column,
      startLine: start.row + 1,
      endLine: endRow + 1,
    });
  }
  items.sort((a, b) => a.start - b.start || b.end - a.end);
  return { packageParts, items };
}

/**
 * The definitions of one file with qualified names (Java `pkg.Outer.Inner.method`, Go
 * `pkg.Type.Method`, Rust `module::Type::method`, Python `module.Class.method`, C++
 * `ns::Class::method`, Scala `pkg.Object.def`, C functions and macros). Python and Rust
 * module names come from the path. Names are qualified on demand: a query qualifies only the
 * definitions whose last name part it names, so a file costs little until a symbol in it is
 * looked up, and nothing is kept per definition beyond the raw list.
 */
export class SymbolTable {
  readonly #language: Language;
  readonly #prefix: string[];
  readonly #items: RawDefinition[];
  /**
   * Made on the first query: per definition, the definition that encloses it (-1: none), in the
   * raw order; definition indices by their last name part (ascending).
   */
  #lookup: { parents: Int32Array; byLastPart: Map<string, number[]> } | undefined;

  constructor(language: Language, path: string, raw: RawDefinitions) {
    this.#language = language;
    this.#prefix = raw.packageParts ?? modulePrefix(language, path);
    this.#items = raw.items;
  }

  #index(): { parents: Int32Array; byLastPart: Map<string, number[]> } {
    if (this.#lookup) return this.#lookup;
    const items = this.#items;
    const parents = new Int32Array(items.length);
    const byLastPart = new Map<string, number[]>();
    const stack: number[] = [];
    items.forEach((item, index) => {
      while (
        stack.length > 0 &&
        (items[stack[stack.length - 1] as number] as RawDefinition).end <= item.start
      )
        stack.pop();
      parents[index] = stack.length > 0 ? (stack[stack.length - 1] as number) : -1;
      stack.push(index);
      if (item.name === "") return;
      const last = item.name.slice(item.name.lastIndexOf("\n") + 1);
      const list = byLastPart.get(last);
      if (list) list.push(index);
      else byLastPart.set(last, [index]);
    });
    this.#lookup = { parents, byLastPart };
    return this.#lookup;
  }

  /** The qualified name parts of definition `index` (prefix, enclosing names, its own). */
  #components(index: number, parents: Int32Array): string[] {
    const names: string[] = [];
    for (let at = index; at !== -1; at = parents[at] as number) {
      const name = (this.#items[at] as RawDefinition).name;
      if (name !== "") names.push(name);
    }
    const components = [...this.#prefix];
    for (let at = names.length - 1; at >= 0; at--)
      components.push(...(names[at] as string).split("\n"));
    return components;
  }

  #definition(index: number, components: string[]): SymbolDefinition {
    const item = this.#items[index] as RawDefinition;
    return {
      components,
      qualifiedName: components.join(separator[this.#language]),
      kind: item.kind,
      startLine: item.startLine,
      endLine: item.endLine,
      start: item.start,
      end: item.end,
    };
  }

  /**
   * Definitions whose qualified name ends with `wanted` (the parts of a query, see
   * {@link nameParts}: split once per query, not once per file), all overloads, in order.
   */
  match(wanted: readonly string[]): SymbolDefinition[] {
    if (wanted.length === 0) return [];
    const { parents, byLastPart } = this.#index();
    const matches: SymbolDefinition[] = [];
    for (const index of byLastPart.get(wanted[wanted.length - 1] as string) ?? []) {
      const components = this.#components(index, parents);
      if (components.length < wanted.length) continue;
      const offset = components.length - wanted.length;
      if (!wanted.every((part, at) => components[offset + at] === part)) continue;
      matches.push(this.#definition(index, components));
    }
    return matches;
  }

  /** Every named definition of the file, qualified, in source order (outer first). */
  all(): SymbolDefinition[] {
    const { parents } = this.#index();
    const definitions: SymbolDefinition[] = [];
    this.#items.forEach((item, index) => {
      if (item.name !== "")
        definitions.push(this.#definition(index, this.#components(index, parents)));
    });
    return definitions;
  }
}
