import { AtomCandidates, LineTable } from "./atom-candidates.js";
import {
  ATOM_WORDS,
  type Collection,
  collectAddon,
  EXTRA_WORDS,
  NO_NAME,
} from "./native-collect.js";
import { NativeNode, type NativeNodeContext } from "./native-node.js";
import { NodeList, nativeTree } from "./native-tree.js";
import { POSITION_SCALE } from "./positions.js";
import type { LanguageSpec } from "./specs.js";
import { DECLARATOR_NAME_TYPES, type DefinitionNode, WRAPPER_TYPES } from "./symbols.js";
import type { Parser } from "./tree-sitter.js";
import {
  COMMENT,
  CONTAINER,
  DEFINITION,
  ERROR_TYPE_ID,
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
  /** What the addon needs (made from the first tree of the language it sees). */
  addon?: AddonPlan;
}

/** The field rules as the addon takes them, and every type name by id. */
interface AddonPlan {
  fieldMode: Uint8Array;
  fieldSet: Uint8Array;
  fieldStride: number;
  /** The ids of the fields `name` and `declarator` (0: none). */
  nameField: number;
  declaratorField: number;
  /** 1 for the types that end a declarator chain. */
  declaratorStop: Uint8Array;
  typeNames: string[];
}

function addonPlanOf(plan: Plan, root: Uint32Array): AddonPlan {
  if (plan.addon) return plan.addon;
  const addon = collectAddon as NonNullable<typeof collectAddon>;
  const fieldNames = [
    ...new Set([...plan.fields, ...plan.exclude].flatMap((list) => (list ? [...list] : []))),
  ];
  const [ids, typeNames] = addon.languageFacts(root, [...fieldNames, "name", "declarator"]);
  const idOf = new Map(fieldNames.map((name, index) => [name, ids[index] as number]));
  const fieldStride = Math.max(0, ...ids.subarray(0, fieldNames.length)) + 1;
  const types = plan.role.length;
  const fieldMode = new Uint8Array(types);
  const fieldSet = new Uint8Array(types * fieldStride);
  for (let id = 0; id < types; id++) {
    const listed = plan.fields[id] ?? plan.exclude[id];
    if (!listed) continue;
    fieldMode[id] = plan.fields[id] ? 1 : 2;
    for (const name of listed) {
      const field = idOf.get(name) ?? 0;
      if (field !== 0) fieldSet[id * fieldStride + field] = 1;
    }
  }
  plan.addon = {
    fieldMode,
    fieldSet,
    fieldStride,
    nameField: ids[fieldNames.length] as number,
    declaratorField: ids[fieldNames.length + 1] as number,
    declaratorStop: Uint8Array.from(typeNames, (name) =>
      DECLARATOR_NAME_TYPES.includes(name) ? 1 : 0,
    ),
    typeNames,
  };
  return plan.addon;
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

/** Which native path {@link collectTree} takes. */
export type CollectPath = "addon" | "binding";

/**
 * What `walkTree` collects, read without several native calls per node. With the evaluator's
 * addon (`path` "addon", the default when it is built), one pass in C finds containers,
 * comments, definitions, the package clause, wrappers and ERROR nodes in pre-order with each
 * container's atoms. Without it ("binding"), one node-tree-sitter search finds those nodes
 * and a cursor lists each container's children; that path leaves trees with ERROR or MISSING
 * nodes to the walk (`undefined`), as both paths do for a binding that is not the expected
 * one. Atoms come grouped by container rather than in pre-order; the index does not depend
 * on their order.
 */
export function collectTree(
  tree: Parser.Tree,
  text: string,
  spec: LanguageSpec,
  definitionTypes: readonly string[],
  packageType: string | undefined,
  path: CollectPath = collectAddon ? "addon" : "binding",
): Collected | undefined {
  const native = nativeTree(tree);
  if (!native) return undefined;
  const addon = path === "addon" ? collectAddon : undefined;
  // The search path does not look for ERROR nodes: such trees are left to the walk.
  if (!addon && native.hasError()) return undefined;
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
  if (addon) {
    const root = native.rootWords();
    const addonPlan = addonPlanOf(plan, root);
    const [types, words, extra, atoms] = addon.collect(
      root,
      plan.role,
      addonPlan.fieldMode,
      addonPlan.fieldSet,
      addonPlan.fieldStride,
      addonPlan.nameField,
      addonPlan.declaratorField,
      addonPlan.declaratorStop,
    );
    const pass: AddonPass = { extra, atoms, typeNames: addonPlan.typeNames };
    const found = NodeList.of(types, words, { words: extra, stride: EXTRA_WORDS });
    collectFound(context, plan, pass, found, result);
  } else {
    const lines = new LineTable(text);
    collectFound(context, plan, lines, native.descendantsOfType(plan.types), result);
  }
  return result;
}

/** The addon's answers beyond the found nodes (see `Collection`). */
interface AddonPass {
  extra: Collection["extra"];
  atoms: Collection["atoms"];
  typeNames: readonly string[];
}

/** Appends the atoms the addon found for found node `index` (a container). */
function addonAtoms(
  pass: AddonPass,
  index: number,
  containerStart: number,
  atoms: AtomCandidates,
): void {
  const { extra, typeNames } = pass;
  const at = index * EXTRA_WORDS;
  const containerEnd = extra[at] as number;
  const first = extra[at + 3] as number;
  const count = extra[at + 4] as number;
  const words = pass.atoms;
  for (let atom = first; atom < first + count; atom++) {
    const word = atom * ATOM_WORDS;
    atoms.push(
      typeNames[words[word] as number] as string,
      words[word + 1] as number,
      words[word + 2] as number,
      words[word + 3] as number,
      words[word + 4] as number,
      containerStart,
      containerEnd,
    );
  }
}

/**
 * What the addon read of definition `index` without asking the tree: the text of its `name`
 * field child and of the end of its declarator chain (`null`: none). The search path reads
 * nothing (`undefined`).
 */
function knownNames(
  text: string,
  source: LineTable | AddonPass,
  index: number,
): { nameText?: string | null; declaratorText?: string | null } {
  if (source instanceof LineTable) return {};
  const { extra } = source;
  const at = index * EXTRA_WORDS;
  const slice = (start: number, end: number) => (start === NO_NAME ? null : text.slice(start, end));
  return {
    nameText: slice(extra[at + 5] as number, extra[at + 6] as number),
    declaratorText: slice(extra[at + 7] as number, extra[at + 8] as number),
  };
}

/**
 * Goes through the nodes the search or the addon found, in pre-order (see `collectTree`); a
 * line table means the search, whose containers' children a cursor lists.
 */
function collectFound(
  context: NativeNodeContext,
  plan: Plan,
  source: LineTable | AddonPass,
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
    // An anonymous token with the name of a named type (only the addon finds ERROR nodes).
    if (nodeRole === 0 && typeId !== ERROR_TYPE_ID) continue;
    const row = found.startRow(index);
    const column = found.startColumn(index);
    if (key(row, column) < commentEnd) continue;
    if (typeId === ERROR_TYPE_ID || nodeRole === COMMENT) {
      const end = native.endPosition(found, index);
      const range = { startRow: row, startColumn: column, endRow: end.row, endColumn: end.column };
      if (typeId === ERROR_TYPE_ID) result.errors.push(range);
      else {
        result.comments.push(range);
        commentEnd = key(end.row, end.column);
      }
    } else if (nodeRole === CONTAINER) {
      if (source instanceof LineTable) {
        const cursor = native.cursorAt(found, index);
        collectChildren(cursor, typeId, row, plan, source, result.atoms);
      } else addonAtoms(source, index, row, result.atoms);
    } else if (nodeRole === DEFINITION) {
      const node = new NativeNode(context, found, index, knownNames(context.text, source, index));
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
