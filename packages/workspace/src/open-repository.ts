import { resolve } from "node:path";
import { defaultCacheDir } from "./cache-dir.js";
import { type GitEngine, openReader } from "./engine.js";
import type { WorkspaceEvent } from "./events.js";
import { openSource } from "./internal/source-repo.js";

/** Options of {@link openRepository}. */
export interface OpenRepositoryOptions {
  /** An http(s) URL (cloned once into the repository cache) or a local repository path. */
  source: string;
  /** A revision that must be present; a cached clone without it is fetched again. */
  commit: string;
  /** Cache folder; clones go to `<cacheDir>/repos/`. Default as `prepareWorkspace`. */
  cacheDir?: string;
  /**
   * Reads, clones and fetches with the `git` binary (default when on PATH, so git's own
   * configuration such as `url.<base>.insteadOf` applies) or with isomorphic-git.
   */
  engine?: GitEngine;
  signal?: AbortSignal | undefined;
  onEvent?: (event: WorkspaceEvent) => void;
}

/**
 * The local git folder of a source: a local repository's own, or, for a URL, a bare clone in
 * the cache (made once under a lock, renamed into place only when complete, fetched again
 * when `commit` is missing). Errors are `WORKSPACE_ERROR`s naming the source.
 *
 * @example
 * ```ts
 * const gitdir = await openRepository({ source: "https://github.com/apache/zookeeper", commit });
 * const report = await checkLeakage({ dir, fix: { repo: gitdir, commit: fixCommit } });
 * ```
 */
export function openRepository(options: OpenRepositoryOptions): Promise<string> {
  const emit = options.onEvent ?? (() => {});
  return openSource({
    source: options.source,
    cacheDir: resolve(options.cacheDir ?? defaultCacheDir({ onEvent: emit })),
    commit: options.commit,
    hasCommit: async (path) => {
      const probe = await openReader(path, options.engine);
      try {
        await probe.resolve(options.commit);
        return true;
      } catch {
        return false;
      } finally {
        await probe.close();
      }
    },
    engine: options.engine,
    signal: options.signal,
    events: {
      onClone: (phase, url) =>
        emit({ type: phase === "start" ? "repo-clone-start" : "repo-clone-end", url }),
      onFetch: (phase, url) =>
        emit({ type: phase === "start" ? "repo-fetch-start" : "repo-fetch-end", url }),
    },
  });
}
