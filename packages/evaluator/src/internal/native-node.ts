import type { NativeTree, NodeList, Point } from "./native-tree.js";
import type { DefinitionNode } from "./symbols.js";

/** What the nodes of one tree share: raw access, the parsed text, type names by id. */
export interface NativeNodeContext {
  native: NativeTree;
  text: string;
  names: readonly (string | undefined)[];
}

/**
 * A syntax node read through {@link NativeTree} (node `index` of a node list that is not
 * reused): the same answers as tree-sitter's `SyntaxNode` for what definitions need, without
 * its per-node object cache.
 */
export class NativeNode implements DefinitionNode {
  readonly #context: NativeNodeContext;
  readonly #list: NodeList;
  readonly #index: number;
  /** See {@link DefinitionNode.nameText}. */
  readonly nameText: string | null | undefined;
  /** See {@link DefinitionNode.declaratorText}. */
  readonly declaratorText: string | null | undefined;

  constructor(
    context: NativeNodeContext,
    list: NodeList,
    index: number,
    known: { nameText?: string | null; declaratorText?: string | null } = {},
  ) {
    this.#context = context;
    this.#list = list;
    this.#index = index;
    this.nameText = known.nameText;
    this.declaratorText = known.declaratorText;
  }

  get type(): string {
    const name = this.#context.names[this.#list.typeIds[this.#index] as number];
    return name ?? this.#context.native.type(this.#list, this.#index);
  }

  get text(): string {
    const end = this.#context.native.endIndex(this.#list, this.#index);
    return this.#context.text.slice(this.#list.startIndex(this.#index), end);
  }

  get startPosition(): Point {
    return { row: this.#list.startRow(this.#index), column: this.#list.startColumn(this.#index) };
  }

  get endPosition(): Point {
    const { row, column } = this.#context.native.endPosition(this.#list, this.#index);
    return { row, column };
  }

  get parent(): NativeNode | null {
    const list = this.#context.native.parent(this.#list, this.#index);
    return list ? new NativeNode(this.#context, list, 0) : null;
  }

  get namedChildren(): NativeNode[] {
    const list = this.#context.native.namedChildren(this.#list, this.#index);
    return Array.from(
      { length: list.count },
      (_, index) => new NativeNode(this.#context, list, index),
    );
  }

  childForFieldName(name: string): NativeNode | null {
    const list = this.#context.native.childForFieldName(this.#list, this.#index, name);
    return list ? new NativeNode(this.#context, list, 0) : null;
  }
}
