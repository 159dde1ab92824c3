import { resolve } from "node:path";
import { defaultCacheDir } from "@distdebug/workspace";
import type { CliIO } from "../io.js";

/** The `--cache-dir` option of every command that uses the cache, with its default in words. */
export const CACHE_DIR_OPTION = {
  "cache-dir": {
    type: "string",
    description:
      "repository and workspace cache (default $DISTDEBUG_CACHE_DIR, else $XDG_CACHE_HOME/distdebug, else ~/.cache/distdebug)",
  },
} as const;

/**
 * The cache folder of a command: `--cache-dir` (relative to the working folder), else
 * workspace's `defaultCacheDir` of the command's environment, warning on stderr when it came
 * from the deprecated `DISTDEBUG_CACHE`.
 */
export function cacheDirOf(option: string | undefined, io: CliIO): string {
  if (option !== undefined) return resolve(io.cwd, option);
  return defaultCacheDir({
    env: io.env,
    onEvent: (event) =>
      io.stderr(
        `warning: ${event.variable} is deprecated, set ${event.replacement} instead (using ${event.value})\n`,
      ),
  });
}

/** The `--no-count-cache` option of every command that scores (run, score, verify). */
export const COUNT_CACHE_OPTION = {
  "no-count-cache": {
    type: "boolean",
    description:
      "do not keep the repository size's row counts in <cache-dir>/row-counts (by git blob id; a damaged entry is counted again); count them in this process only",
  },
} as const;

/** Whether the row-count cache is kept (`--no-count-cache` not given). */
export function countCacheOf(args: { values: Record<string, unknown> }): boolean {
  return args.values["no-count-cache"] !== true;
}
