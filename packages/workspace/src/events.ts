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
  | { type: "repo-clone-start"; url: string }
  | { type: "repo-clone-end"; url: string }
  | { type: "repo-fetch-start"; url: string }
  | { type: "repo-fetch-end"; url: string }
  | { type: "cache-hit"; key: string; baseDir: string }
  | { type: "cache-miss"; key: string }
  | { type: "cache-corrupt"; key: string; baseDir: string; reason: string }
  | { type: "tree-progress"; filesDone: number; filesTotal: number }
  | { type: "stale-remove"; path: string }
  | { type: "workspace-ready"; dir: string; durationMs: number };
