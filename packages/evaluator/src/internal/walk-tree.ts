import type { LanguageSpec } from "./specs.js";
import { type DefinitionNode, WRAPPER_TYPES } from "./symbols.js";
import type { Parser } from "./tree-sitter.js";

/** A source range in rows and UTF-16 columns (0-based). */
export interface Range {
  startRow: number;
  startColumn: number;
  endRow: number;
  endColumn: number;
}

/** A named child of a container, with its container's rows. */
export interface ChildRange extends Range {
  type: string;
  containerStart: number;
  containerEnd: number;
}

/** What one walk of a syntax tree collects. */
export interface WalkResult {
  children: ChildRange[];
  comments: Range[];
  errors: Range[];
  definitions: DefinitionNode[];
  packageNode: DefinitionNode | undefined;
}

/** Roles of node types (by symbol id) in a walk. */
export const CONTAINER = 1;
export const COMMENT = 2;
export const DEFINITION = 3;
export const PACKAGE = 4;
/** Wraps a definition (see `WRAPPER_TYPES`); only `collectTree` looks for these. */
export const WRAPPER = 5;
/** ts_builtin_sym_error. */
/** The type id tree-sitter gives ERROR nodes. */
export const ERROR_TYPE_ID = 65535;

/** Role and name of each named node type, by symbol id. */
export interface Roles {
  role: Uint8Array;
  names: (string | undefined)[];
}

const rolesByLanguage = new WeakMap<object, Roles>();

/** Node type names by symbol id, read from node-tree-sitter's per-type node classes. */
export function rolesOf(
  language: Parser.Language,
  spec: LanguageSpec,
  definitionTypes: readonly string[],
  packageType: string | undefined,
): Roles {
  const cached = rolesByLanguage.get(language as object);
  if (cached) return cached;
  const classes =
    (language as unknown as { nodeSubclasses?: { prototype: object }[] }).nodeSubclasses ?? [];
  const names: (string | undefined)[] = [];
  const role = new Uint8Array(Math.max(classes.length, 1));
  const comments = new Set(spec.comments);
  const definitions = new Set(definitionTypes);
  const wrappers = new Set(WRAPPER_TYPES);
  classes.forEach((nodeClass, id) => {
    const type = Object.getOwnPropertyDescriptor(nodeClass.prototype, "type")?.value;
    if (typeof type !== "string") return;
    names[id] = type;
    if (spec.containers[type]) role[id] = CONTAINER;
    else if (comments.has(type)) role[id] = COMMENT;
    else if (definitions.has(type)) role[id] = DEFINITION;
    else if (type === packageType) role[id] = PACKAGE;
    else if (wrappers.has(type)) role[id] = WRAPPER;
  });
  const roles = { role, names };
  rolesByLanguage.set(language as object, roles);
  return roles;
}

interface Frame {
  fields: readonly string[] | undefined;
  exclude: readonly string[] | undefined;
  startRow: number;
  endRow: number;
}

/**
 * One pre-order walk of the tree with a cursor (no node objects except for definitions):
 * the named children of containers, comments, ERROR regions, definition nodes.
 */
export function walkTree(
  tree: Parser.Tree,
  spec: LanguageSpec,
  definitionTypes: readonly string[],
  packageType: string | undefined,
): WalkResult {
  const language = (tree as unknown as { language: Parser.Language }).language;
  const { role, names } = rolesOf(language, spec, definitionTypes, packageType);
  const result: WalkResult = {
    children: [],
    comments: [],
    errors: [],
    definitions: [],
    packageNode: undefined,
  };
  const cursor = tree.walk();
  const stack: (Frame | null)[] = [];
  let parent: Frame | null = null;
  for (;;) {
    const typeId = cursor.nodeTypeId;
    const nodeRole = typeId === ERROR_TYPE_ID ? 0 : (role[typeId] ?? 0);
    let frame: Frame | null = null;
    let descend = true;
    if (nodeRole === COMMENT) {
      const start = cursor.startPosition;
      const end = cursor.endPosition;
      result.comments.push({
        startRow: start.row,
        startColumn: start.column,
        endRow: end.row,
        endColumn: end.column,
      });
      descend = false;
    } else if (typeId === ERROR_TYPE_ID) {
      const start = cursor.startPosition;
      const end = cursor.endPosition;
      result.errors.push({
        startRow: start.row,
        startColumn: start.column,
        endRow: end.row,
        endColumn: end.column,
      });
    } else {
      if (parent !== null && cursor.nodeIsNamed) {
        let take = true;
        if (parent.fields || parent.exclude) {
          const field = cursor.currentFieldName;
          if (parent.fields) take = field !== undefined && parent.fields.includes(field);
          else if (field !== undefined && parent.exclude?.includes(field)) take = false;
        }
        if (take) {
          const start = cursor.startPosition;
          const end = cursor.endPosition;
          if (start.row !== end.row || start.column !== end.column)
            result.children.push({
              type: names[typeId] ?? cursor.nodeType,
              startRow: start.row,
              startColumn: start.column,
              endRow: end.row,
              endColumn: end.column,
              containerStart: parent.startRow,
              containerEnd: parent.endRow,
            });
        }
      }
      if (nodeRole === CONTAINER) {
        const containerSpec = spec.containers[names[typeId] as string] ?? {};
        frame = {
          fields: containerSpec.fields,
          exclude: containerSpec.exclude,
          startRow: cursor.startPosition.row,
          endRow: cursor.endPosition.row,
        };
      } else if (nodeRole === DEFINITION) result.definitions.push(cursor.currentNode);
      else if (nodeRole === PACKAGE) result.packageNode ??= cursor.currentNode;
    }
    if (descend && cursor.gotoFirstChild()) {
      stack.push(parent);
      parent = frame;
      continue;
    }
    let done = false;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        done = true;
        break;
      }
      parent = stack.pop() ?? null;
    }
    if (done) break;
  }
  return result;
}
