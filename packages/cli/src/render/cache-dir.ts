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
