import type { CacheVariableDeprecatedEvent } from "./cache-dir.js";

/**
 * Events of {@link prepareWorkspace}, named `<noun>-<verb>`.
 *
 * @example
 * ```ts
 * await prepareWorkspace({ source, commit, dir, onEvent: (event) => console.log(event.type) });
 * ```
 */
export type WorkspaceEvent =
  | CacheVariableDeprecatedEvent
  /** A bare clone of a URL source into the cache begins. */
  | { type: "repo-clone-start"; url: string }
  /** The clone is complete. */
  | { type: "repo-clone-end"; url: string }
  /** A fetch of a missing commit into a cached clone begins. */
  | { type: "repo-fetch-start"; url: string }
  /** The fetch is complete. */
  | { type: "repo-fetch-end"; url: string }
  /** The base workspace is in the cache and whole. */
  | { type: "cache-hit"; key: string; baseDir: string }
  /** The base workspace is not in the cache: it is built. */
  | { type: "cache-miss"; key: string }
  /** A cached base workspace failed its check and is discarded (then rebuilt). */
  | { type: "cache-discard"; key: string; baseDir: string; reason: string }
  /** Progress of writing or copying the tree. */
  | { type: "tree-copy"; filesDone: number; filesTotal: number }
  /** A leftover temporary folder or lock of a dead process is removed. */
  | { type: "leftover-remove"; path: string }
  /** The workspace is ready at `dir`. */
  | { type: "workspace-prepare-end"; dir: string; durationMs: number };
