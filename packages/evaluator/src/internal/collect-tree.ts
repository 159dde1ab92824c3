import type Parser from "tree-sitter";
import { AtomCandidates, LineTable } from "./atom-candidates.js";
import { NativeNode, type NativeNodeContext } from "./native-node.js";
import { type NodeList, nativeTree } from "./native-tree.js";
import { POSITION_SCALE } from "./positions.js";
import type { LanguageSpec } from "./specs.js";
import { type DefinitionNode, WRAPPER_TYPES } from "./symbols.js";
import {
  COMMENT,
  CONTAINER,
  DEFINITION,
  PACKAGE,
  type Range,
  type Roles,
  rolesOf,
  type WalkResult,
  WRAPPER,
} from "./walk-tree.js";

/** What the atom index needs from a syntax tree (see `walkTree`), atoms as columns. */
export interface Collected {
  atoms: AtomCandidates;
  comments: Range[];
  errors: Range[];
  definitions: DefinitionNode[];
  packageNode: DefinitionNode | undefined;
  /** The wrapper of each wrapped definition, when known for all of them (else ask `parent`). */
  wrappers?: Map<DefinitionNode, DefinitionNode>;
}

/** The columns of a `walkTree` result. */
export function fromWalk(walked: WalkResult): Collected {
  const atoms = new AtomCandidates(Math.max(1, walked.children.length));
  for (const child of walked.children)
    atoms.push(
      child.type,
      child.startRow,
      child.startColumn,
      child.endRow,
      child.endColumn,
      child.containerStart,
      child.containerEnd,
    );
  return { ...walked, atoms };
}

function key(row: number, column: number): number {
  return row * POSITION_SCALE + column;
}

/** What the collection needs to know about a language, by type id (one shape for all). */
interface Plan {
  role: Uint8Array;
  names: (string | undefined)[];
  /** 1 named, 0 anonymous, -1 not seen yet (a property of the id the tree reports). */
  named: Int8Array;
  /** Per container type: only children in these fields are atoms. */
  fields: (readonly string[] | undefined)[];
  /** Per container type: children in these fields are not atoms. */
  exclude: (readonly string[] | undefined)[];
  /** Node types to search for. */
  types: string[];
}

const plans = new WeakMap<object, Plan>();

function planOf(
  language: Parser.Language,
  spec: LanguageSpec,
  definitionTypes: readonly string[],
  packageType: string | undefined,
): Plan {
  let plan = plans.get(language as object);
  if (plan) return plan;
  const { role, names }: Roles = rolesOf(language, spec, definitionTypes, packageType);
  const fields: (readonly string[] | undefined)[] = [];
  const exclude: (readonly string[] | undefined)[] = [];
  names.forEach((name, id) => {
    const container = name === undefined ? undefined : spec.containers[name];
    fields[id] = container?.fields;
    exclude[id] = container?.exclude;
  });
  const types = [...Object.keys(spec.containers), ...spec.comments, ...definitionTypes];
  if (packageType !== undefined) types.push(packageType);
  types.push(...WRAPPER_TYPES);
  plan = { role, names, named: new Int8Array(65536).fill(-1), fields, exclude, types };
  plans.set(language as object, plan);
  return plan;
}

/**
 * Appends the atoms among the children of the container the cursor is on. A function of its
 * own, on objects of one shape for every language, so that it stays optimized across files.
 */
function collectChildren(
  cursor: Parser.TreeCursor,
  containerType: number,
  containerStart: number,
  plan: Plan,
  lines: LineTable,
  atoms: AtomCandidates,
): void {
  const { role, names, named } = plan;
  const fields = plan.fields[containerType];
  const exclude = plan.exclude[containerType];
  const containerEnd = lines.rowOf(cursor.endIndex);
  if (!cursor.gotoFirstChild()) return;
  do {
    const childType = cursor.nodeTypeId;
    let isNamed = named[childType] as number;
    if (isNamed === -1) {
      isNamed = cursor.nodeIsNamed ? 1 : 0;
      named[childType] = isNamed;
    }
    if (isNamed === 0 || role[childType] === COMMENT) continue;
    if (fields || exclude) {
      const field = cursor.currentFieldName;
      const inField = field !== undefined && (fields ?? exclude ?? []).includes(field);
      if (fields ? !inField : inField) continue;
    }
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    if (start === end) continue;
    const startRow = lines.rowOf(start);
    const endRow = lines.rowOf(end);
    atoms.push(
      names[childType] ?? cursor.nodeType,
      startRow,
      start - lines.startOf(startRow),
      endRow,
      end - lines.startOf(endRow),
      containerStart,
      containerEnd,
    );
  } while (cursor.gotoNextSibling());
}

/**
 * What `walkTree` collects, read in one native search plus a few cursor steps per
 * container child instead of several native calls per node: the search finds containers,
 * comments, definitions and the package clause in pre-order, then a cursor lists each
 * container's children. Trees with ERROR or MISSING nodes, and a binding that is not the
 * expected one, give `undefined` (the caller walks the tree instead). Atoms come grouped by
 * container rather than in pre-order; the index does not depend on their order.
 */
export function collectTree(
  tree: Parser.Tree,
  text: string,
  spec: LanguageSpec,
  definitionTypes: readonly string[],
  packageType: string | undefined,
): Collected | undefined {
  const native = nativeTree(tree);
  if (!native || native.hasError()) return undefined;
  const language = (tree as unknown as { language: Parser.Language }).language;
  const plan = planOf(language, spec, definitionTypes, packageType);
  const context: NativeNodeContext = { native, text, names: plan.names };
  const result: Collected = {
    atoms: new AtomCandidates(Math.max(256, text.length >>> 6)),
    comments: [],
    errors: [],
    definitions: [],
    packageNode: undefined,
    wrappers: new Map(),
  };
  collectFound(context, plan, new LineTable(text), native.descendantsOfType(plan.types), result);
  return result;
}

/** Goes through the nodes the search found, in pre-order (see `collectTree`). */
function collectFound(
  context: NativeNodeContext,
  plan: Plan,
  lines: LineTable,
  found: NodeList,
  result: Collected,
): void {
  const { native } = context;
  const { role } = plan;
  // Definitions that are named children of a wrapper found earlier (pre-order), by node id.
  const wrapped = new Map<string, NativeNode>();
  // The walk does not enter comments: nothing found inside one counts.
  let commentEnd = -1;
  for (let index = 0; index < found.count; index++) {
    const typeId = found.typeIds[index] as number;
    const nodeRole = role[typeId] ?? 0;
    if (nodeRole === 0) continue; // an anonymous token with the name of a named type
    const row = found.startRow(index);
    const column = found.startColumn(index);
    if (key(row, column) < commentEnd) continue;
    if (nodeRole === COMMENT) {
      const end = native.endPosition(found, index);
      result.comments.push({
        startRow: row,
        startColumn: column,
        endRow: end.row,
        endColumn: end.column,
      });
      commentEnd = key(end.row, end.column);
    } else if (nodeRole === CONTAINER) {
      const cursor = native.cursorAt(found, index);
      collectChildren(cursor, typeId, row, plan, lines, result.atoms);
    } else if (nodeRole === DEFINITION) {
      const node = new NativeNode(context, found, index);
      result.definitions.push(node);
      const wrapper = wrapped.get(found.idOf(index));
      if (wrapper) result.wrappers?.set(node, wrapper);
    } else if (nodeRole === WRAPPER) {
      const wrapper = new NativeNode(context, found, index);
      const children = native.namedChildren(found, index);
      for (let child = 0; child < children.count; child++)
        if (role[children.typeIds[child] as number] === DEFINITION)
          wrapped.set(children.idOf(child), wrapper);
    } else if (nodeRole === PACKAGE) {
      result.packageNode ??= new NativeNode(context, found, index);
    }
  }
}
