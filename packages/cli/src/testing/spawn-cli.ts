import { repoRoot } from "@distdebug/test-utils";

export { repoRoot };

/**
 * The node arguments that run the CLI from source in a child process from any working
 * directory: `[...cliNodeArgs(), "validate", "x.json"]` passed to `process.execPath`.
 */
export function cliNodeArgs(): string[] {
  return [
    "--conditions=@distdebug/source",
    "--import",
    `${repoRoot}node_modules/tsx/dist/loader.mjs`,
    `${repoRoot}packages/cli/src/bin.ts`,
  ];
}
