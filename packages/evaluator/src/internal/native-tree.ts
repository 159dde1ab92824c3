import { createRequire } from "node:module";
import { dirname } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { Parser, TREE_SITTER_ENTRY, TREE_SITTER_VERSION } from "./tree-sitter.js";

/**
 * Batch access to node-tree-sitter's native node methods, without a JS `SyntaxNode` per node.
 *
 * node-tree-sitter 0.25 passes a node to its native methods as six 32-bit words in a shared
 * transfer buffer (node id low and high, start byte, start row, start column, alias; bytes and
 * columns count UTF-16 code units twice) and hands nodes back the same way: a result is the
 * node's type id, its six words in the buffer. Its public `SyntaxNode` wraps each result in an
 * object registered in a weak per-tree cache, which costs microseconds per node; reading the
 * words directly makes a batch of nodes (`descendantsOfType`, `namedChildren`) one native call.
 * The binding used is the very module the runtime (`./tree-sitter.ts`) loaded (checked at load); when it is not, or
 * its shape differs, {@link nativeTree} gives `undefined` and callers use the public API.
 */

/** A native node method: the node is in the transfer buffer, the tree is the first argument. */
type NodeMethod = (tree: Parser.Tree, argument?: unknown) => unknown;

interface Binding {
  Parser: unknown;
  NodeMethods: Record<string, NodeMethod>;
  nodeTransferArray: Uint32Array;
  pointTransferArray: Uint32Array;
}

const WORDS = 6;

const methodNames = [
  "descendantsOfType",
  "namedChildren",
  "childForFieldName",
  "parent",
  "endPosition",
  "endIndex",
  "typeId",
  "type",
  "hasError",
] as const;
type Methods = Record<(typeof methodNames)[number], NodeMethod>;

function loadBinding(): Binding | undefined {
  try {
    if (!TREE_SITTER_VERSION.startsWith("0.25.")) return undefined;
    const load = createRequire(TREE_SITTER_ENTRY)("node-gyp-build") as (dir: string) => Binding;
    const binding = load(dirname(TREE_SITTER_ENTRY));
    if (binding.Parser !== Parser) return undefined;
    if (!(binding.nodeTransferArray instanceof Uint32Array)) return undefined;
    if (!(binding.pointTransferArray instanceof Uint32Array)) return undefined;
    for (const name of methodNames)
      if (typeof binding.NodeMethods?.[name] !== "function") return undefined;
    const cursorClass = (Parser as unknown as { TreeCursor?: { prototype?: { reset?: unknown } } })
      .TreeCursor;
    if (typeof cursorClass?.prototype?.reset !== "function") return undefined;
    return binding;
  } catch {
    return undefined;
  }
}

const binding = loadBinding();

/**
 * Nodes of one tree: type ids and six words each. A list given to a method as `into` is
 * overwritten (its arrays grow as needed), so one list can serve a whole loop.
 */
export class NodeList {
  count = 0;
  typeIds: Int32Array | Uint32Array | number[];
  words: Uint32Array | number[];

  constructor(capacity = 1) {
    this.typeIds = new Int32Array(capacity);
    this.words = new Uint32Array(capacity * WORDS);
  }

  /** A list over arrays made elsewhere (type ids, and six words per node). */
  static of(typeIds: Uint32Array, words: Uint32Array, ends?: NodeEnds): NodeList {
    const list = new NodeList(0);
    list.typeIds = typeIds;
    list.words = words;
    list.count = typeIds.length;
    list.ends = ends;
    return list;
  }

  /** The nodes' ends, when known without asking the tree. */
  ends: NodeEnds | undefined;

  /** A list for one node, in plain arrays (cheaper to make than typed ones). */
  static single(): NodeList {
    const list = new NodeList(0);
    list.typeIds = [0];
    list.words = [0, 0, 0, 0, 0, 0];
    return list;
  }

  /** Makes room for `count` nodes (contents are not kept). */
  reserve(count: number): void {
    if (this.typeIds.length >= count) return;
    const capacity = Math.max(count, this.typeIds.length * 2);
    this.typeIds = new Int32Array(capacity);
    this.words = new Uint32Array(capacity * WORDS);
  }

  /** Start row of node `index`. */
  startRow(index: number): number {
    return this.words[index * WORDS + 3] as number;
  }

  /** Start column (UTF-16 code units) of node `index`. */
  startColumn(index: number): number {
    return (this.words[index * WORDS + 4] as number) >>> 1;
  }

  /** Start index (UTF-16 code units) of node `index`. */
  startIndex(index: number): number {
    return (this.words[index * WORDS + 2] as number) >>> 1;
  }

  /** A key of node `index` that no other node of the tree shares. */
  idOf(index: number): string {
    const at = index * WORDS;
    return `${this.words[at]}:${this.words[at + 1]}:${this.words[at + 2]}`;
  }
}

/**
 * Ends of the nodes of a list: node i's end row, end column and end index (UTF-16 code units)
 * are `words[i * stride]`, `words[i * stride + 1]` and `words[i * stride + 2]`.
 */
export interface NodeEnds {
  words: Uint32Array;
  stride: number;
}

/** A point in rows and UTF-16 columns. */
export interface Point {
  row: number;
  column: number;
}

/** Raw node access for one parsed tree (see the module comment). */
export class NativeTree {
  readonly #tree: Parser.Tree;
  readonly #binding: Binding;
  readonly #methods: Methods;
  readonly #root = new NodeList();
  /** Reused by {@link endPosition}. */
  readonly #point: Point = { row: 0, column: 0 };
  #cursor: Parser.TreeCursor | undefined;

  constructor(tree: Parser.Tree, nativeBinding: Binding) {
    this.#tree = tree;
    this.#binding = nativeBinding;
    this.#methods = nativeBinding.NodeMethods as Methods;
    this.#unpack(tree.rootNode ? [tree.rootNode] : [], this.#root);
  }

  /** The root node (a list of one). */
  get root(): NodeList {
    return this.#root;
  }

  /** The root node's six words (a copy). */
  rootWords(): Uint32Array {
    return Uint32Array.from(this.#root.words.slice(0, WORDS));
  }

  /** True when the tree has ERROR or MISSING nodes. */
  hasError(): boolean {
    this.#load(this.#root, 0);
    return this.#methods.hasError(this.#tree) as boolean;
  }

  #load(list: NodeList, index: number): void {
    const transfer = this.#binding.nodeTransferArray;
    const words = list.words;
    const at = index * WORDS;
    transfer[0] = words[at] as number;
    transfer[1] = words[at + 1] as number;
    transfer[2] = words[at + 2] as number;
    transfer[3] = words[at + 3] as number;
    transfer[4] = words[at + 4] as number;
    transfer[5] = words[at + 5] as number;
  }

  /** Copies a native node list (type ids, or node objects the public API cached) into `into`. */
  #unpack(result: unknown, into: NodeList): NodeList {
    const values = Array.isArray(result) ? (result as unknown[]) : [];
    const count = values.length;
    into.reserve(count);
    into.count = count;
    const transfer = this.#binding.nodeTransferArray;
    const { typeIds, words } = into;
    let cached: number[] | undefined;
    let offset = 0;
    for (let index = 0; index < count; index++) {
      const value = values[index];
      const at = index * WORDS;
      if (typeof value === "number") {
        typeIds[index] = value;
        for (let word = 0; word < WORDS; word++)
          words[at + word] = transfer[offset + word] as number;
        offset += WORDS;
      } else if (value !== null && typeof value === "object") {
        // A node the public API created earlier: its words are on the object.
        const node = value as Record<number, number>;
        for (let word = 0; word < WORDS; word++) words[at + word] = node[word] as number;
        cached ??= [];
        cached.push(index);
      } else {
        // The JS side of the binding does not advance in the buffer for a null node; the
        // methods used here never return one in a list.
        throw new DistDebugError({
          code: "INTERNAL",
          message:
            "the tree-sitter binding returned a null node in a node list, which the evaluator's native tree reader does not expect; report this with the file being parsed",
        });
      }
    }
    if (cached)
      for (const index of cached) {
        this.#load(into, index);
        typeIds[index] = this.#methods.typeId(this.#tree) as number;
      }
    return into;
  }

  #single(result: unknown): NodeList | undefined {
    if (result === null || result === undefined) return undefined;
    return this.#unpack([result], NodeList.single());
  }

  /** All nodes of the given types in the tree (the root included), in pre-order. */
  descendantsOfType(types: readonly string[]): NodeList {
    this.#load(this.#root, 0);
    return this.#unpack(this.#methods.descendantsOfType(this.#tree, [...types]), new NodeList());
  }

  /** The named children of node `index` of `list`. */
  namedChildren(list: NodeList, index: number, into = new NodeList()): NodeList {
    this.#load(list, index);
    return this.#unpack(this.#methods.namedChildren(this.#tree), into);
  }

  /** The child in field `field` of node `index`, or `undefined`. */
  childForFieldName(list: NodeList, index: number, field: string): NodeList | undefined {
    this.#load(list, index);
    return this.#single(this.#methods.childForFieldName(this.#tree, field));
  }

  /** The parent of node `index`, or `undefined` for the root. */
  parent(list: NodeList, index: number): NodeList | undefined {
    this.#load(list, index);
    return this.#single(this.#methods.parent(this.#tree));
  }

  /** End point of node `index` (the returned object is reused by the next call). */
  endPosition(list: NodeList, index: number): Point {
    const ends = list.ends;
    if (ends) {
      this.#point.row = ends.words[index * ends.stride] as number;
      this.#point.column = ends.words[index * ends.stride + 1] as number;
      return this.#point;
    }
    this.#load(list, index);
    this.#methods.endPosition(this.#tree);
    const transfer = this.#binding.pointTransferArray;
    this.#point.row = transfer[0] as number;
    this.#point.column = transfer[1] as number;
    return this.#point;
  }

  /** End index (UTF-16 code units) of node `index`. */
  endIndex(list: NodeList, index: number): number {
    const ends = list.ends;
    if (ends) return ends.words[index * ends.stride + 2] as number;
    this.#load(list, index);
    return this.#methods.endIndex(this.#tree) as number;
  }

  /**
   * The tree's cursor moved to node `index` of `list` (one cursor per tree: it moves again on
   * the next call). Its native `reset` reads the node from the transfer buffer.
   */
  cursorAt(list: NodeList, index: number): Parser.TreeCursor {
    this.#cursor ??= this.#tree.walk();
    this.#load(list, index);
    (this.#cursor as unknown as { reset(): void }).reset();
    return this.#cursor;
  }

  /** The type name of node `index`. */
  type(list: NodeList, index: number): string {
    this.#load(list, index);
    return this.#methods.type(this.#tree) as string;
  }
}

/**
 * Raw access to one tree, or `undefined` when the binding is not the expected one (callers then
 * use the public API).
 */
export function nativeTree(tree: Parser.Tree): NativeTree | undefined {
  return binding ? new NativeTree(tree, binding) : undefined;
}
