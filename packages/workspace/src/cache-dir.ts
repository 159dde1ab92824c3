import { homedir } from "node:os";
import { join } from "node:path";

/** Emitted when the cache folder comes from the deprecated `DISTDEBUG_CACHE` variable. */
export interface CacheVariableDeprecatedEvent {
  type: "cache-variable-deprecated";
  /** The variable read: `DISTDEBUG_CACHE`. */
  variable: "DISTDEBUG_CACHE";
  /** The variable to set instead: `DISTDEBUG_CACHE_DIR`. */
  replacement: "DISTDEBUG_CACHE_DIR";
  /** The folder it named (used). */
  value: string;
}

/** Options of {@link defaultCacheDir}. */
export interface DefaultCacheDirOptions {
  /** The environment to read. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Receives a warning when only the deprecated `DISTDEBUG_CACHE` is set. */
  onEvent?: (event: CacheVariableDeprecatedEvent) => void;
}

/**
 * The SDK's cache folder: `$DISTDEBUG_CACHE_DIR`, else `$XDG_CACHE_HOME/distdebug`, else
 * `~/.cache/distdebug`. The old name `DISTDEBUG_CACHE` is still read (after
 * `DISTDEBUG_CACHE_DIR`) and reported with a `cache-variable-deprecated` event. Its layout:
 * `repos/` (clones and built repositories, bare), `workspaces/` (base workspaces), `tmp/`.
 *
 * @example
 * ```ts
 * defaultCacheDir({ env: { HOME: "/home/me" } }); // "/home/me/.cache/distdebug" when HOME is your home
 * defaultCacheDir({ env: { DISTDEBUG_CACHE_DIR: "/data/cache" } }); // "/data/cache"
 * ```
 */
export function defaultCacheDir(options: DefaultCacheDirOptions = {}): string {
  const env = options.env ?? process.env;
  if (env.DISTDEBUG_CACHE_DIR) return env.DISTDEBUG_CACHE_DIR;
  if (env.DISTDEBUG_CACHE) {
    options.onEvent?.({
      type: "cache-variable-deprecated",
      variable: "DISTDEBUG_CACHE",
      replacement: "DISTDEBUG_CACHE_DIR",
      value: env.DISTDEBUG_CACHE,
    });
    return env.DISTDEBUG_CACHE;
  }
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "distdebug");
}
