import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { TREE_SITTER_VERSION } from "./tree-sitter.js";

/**
 * The evaluator's own native addon (`native/collect.c`, built by `binding.gyp` at install): one
 * pass in C over a tree node-tree-sitter parsed, giving what `collectTree` needs in four typed
 * arrays instead of a native call per container child. It is optional: when it was not built
 * (no compiler at install), or fails to load, {@link collectAddon} is `undefined` and the
 * evaluator uses node-tree-sitter's own methods (same results, slower).
 */

/** Words per found node in {@link Collection.extra}. */
export const EXTRA_WORDS = 9;
/** In {@link Collection.extra}: a definition without a `name` field child. */
export const NO_NAME = 0xffffffff;
/** Words per atom in {@link Collection.atoms}. */
export const ATOM_WORDS = 5;

/**
 * What one pass finds. Found nodes (containers, comments, definitions, package clauses,
 * wrappers, ERROR nodes) are in pre-order: `types[i]` is node i's type id, `words[6i..6i+5]` its words as
 * node-tree-sitter marshals a node, `extra[9i..9i+8]` its end row, end column and end index
 * (UTF-16 code units), the first and count of its atoms (containers only), and for definitions
 * the start and end index of their `name` field child and of the end of their declarator chain
 * ({@link NO_NAME} when they have none).
 * An atom is a kept child of a container: type id, start row, start column, end row, end
 * column.
 */
export interface Collection {
  types: Uint32Array;
  words: Uint32Array;
  extra: Uint32Array;
  atoms: Uint32Array;
}

/** The addon's functions. A tree is named by its root node's six words. */
export interface CollectAddon {
  /**
   * One pass over the tree. `role` is the role of each type id (walk-tree's constants);
   * `fieldMode[typeId]` is 0 (every child is an atom), 1 (only children in the listed fields)
   * or 2 (all but those), the listed fields of a container being the ids `f` where
   * `fieldSet[typeId * fieldStride + f]` is 1. `nameField` is the id of the field `name`
   * (0 when the language has none); `declaratorField` the id of the field `declarator`, and
   * `declaratorStop[typeId]` is 1 for the types that end a declarator chain.
   */
  collect(
    root: Uint32Array,
    role: Uint8Array,
    fieldMode: Uint8Array,
    fieldSet: Uint8Array,
    fieldStride: number,
    nameField: number,
    declaratorField: number,
    declaratorStop: Uint8Array,
  ): [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  /**
   * The field id of each name in the tree's language (0 when it has no such field), and every
   * symbol name of the language by type id.
   */
  languageFacts(root: Uint32Array, fieldNames: readonly string[]): [Uint32Array, string[]];
  /** The version of the `tree-sitter` package whose runtime sources the addon was built from. */
  treeSitterVersion: string;
}

/** Where the install builds the addon: src/internal and dist/internal are both two levels deep. */
const addonFile = fileURLToPath(
  new URL("../../build/Release/distdebug_collect.node", import.meta.url),
);

/**
 * Loads the addon at `file`, or `undefined` when it is missing, does not load, or was built from
 * other tree-sitter runtime sources than the binding's (`treeSitterVersion`: tree-sitter
 * changed since the install; its structures may differ, so it must not read the binding's trees).
 */
export function loadCollectAddon(
  file: string,
  treeSitterVersion: string,
): CollectAddon | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const addon = createRequire(import.meta.url)(file) as Partial<CollectAddon>;
    if (
      addon.treeSitterVersion !== treeSitterVersion ||
      typeof addon.collect !== "function" ||
      typeof addon.languageFacts !== "function"
    )
      return undefined;
    return addon as CollectAddon;
  } catch {
    return undefined;
  }
}

/** The loaded addon, or `undefined` when it is not built or does not load. */
export const collectAddon: CollectAddon | undefined = loadCollectAddon(
  addonFile,
  TREE_SITTER_VERSION,
);

/** The path the addon is loaded from (for tests and diagnostics). */
export const collectAddonFile = addonFile;
