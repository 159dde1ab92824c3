/**
 * The one list of test projects. The root `vitest.config.ts` passes it to `test.projects`
 * (vitest 4 removed the `workspace` option).
 */
export default [
  "packages/*",
  "examples/*/vitest.config.ts",
  // the repository as a whole: the package table, file cycles, the docs
  "tests/vitest.config.ts",
];
