/// <reference path="../../types/tree-sitter-runtime.d.cts" preserve="true" />
import { createRequire } from "node:module";
import Parser from "tree-sitter-runtime";

/**
 * The name the evaluator installs the npm package `tree-sitter` (the Node binding and runtime)
 * under: an npm alias, `"tree-sitter-runtime": "npm:tree-sitter@0.25.1"`.
 *
 * Each grammar package declares an optional peer dependency `tree-sitter`, with ranges no one
 * version meets (`^0.21.1`, `^0.22.1`, `^0.22.4`, `^0.25.0`). Under its own name, npm would
 * install a second `tree-sitter` for them (compiled from source) and `npm ls` would fail with
 * invalid and extraneous packages; under the alias those optional peers stay unmet, which npm
 * accepts without a warning, and one runtime is installed. The grammars never load it.
 */
export const TREE_SITTER_RUNTIME = "tree-sitter-runtime";

const require = createRequire(import.meta.url);

/** The version of the installed runtime (the `tree-sitter` package), for example `0.25.1`. */
export const TREE_SITTER_VERSION: string = (
  require(`${TREE_SITTER_RUNTIME}/package.json`) as { version: string }
).version;

/** The runtime's entry file (its native binding is loaded from the folder of this file). */
export const TREE_SITTER_ENTRY: string = require.resolve(TREE_SITTER_RUNTIME);

/** node-tree-sitter's `Parser` class; its namespace holds `Tree`, `Language`, `TreeCursor`. */
export { Parser };
