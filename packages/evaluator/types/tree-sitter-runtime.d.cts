// The evaluator installs the npm package `tree-sitter` under the alias `tree-sitter-runtime`
// (see src/internal/tree-sitter.ts for why). That package's types are one ambient
// `declare module "tree-sitter"`, which TypeScript does not find under the alias: this file
// loads them (the reference below resolves node_modules/tree-sitter-runtime's `types`) and
// declares the alias as the same module. It ships with the package, so a project that
// type-checks against the published `.d.ts` files needs no setup of its own. It is a `.d.cts`
// file because `export =` is refused in a declaration file of an ESM package (`"type": "module"`).
/// <reference types="tree-sitter-runtime" />

declare module "tree-sitter-runtime" {
  import Parser = require("tree-sitter");
  export = Parser;
}
