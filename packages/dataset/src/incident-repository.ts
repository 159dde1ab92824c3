import { openRepository, type WorkspaceEvent } from "@distdebug/workspace";
import { buildIncidentRepository } from "./build-repository.js";
import type { DatasetIncident } from "./types.js";

/** Options of {@link openIncidentRepository}. */
export interface OpenIncidentRepositoryOptions {
  /** The cache folder: built repositories and clones go to `<cacheDir>/repos/`. */
  cacheDir: string;
  /** For a remote repository: a local mirror (a git folder) read instead of its URL. */
  mirror?: string | undefined;
  signal?: AbortSignal | undefined;
  /** The workspace's events of opening a remote repository (the clone). */
  onEvent?: ((event: WorkspaceEvent) => void) | undefined;
}

/** An incident's repository in the cache. */
export interface IncidentRepository {
  /** The bare git repository (a git dir). */
  gitdir: string;
  /** The revision the agent sees. */
  buggyCommit: string;
}

/**
 * An incident's repository in the cache: one stored as data is built offline
 * (`buildIncidentRepository`); a remote one (the catalog) is read from `mirror` when given,
 * else cloned once into the cache, which needs network.
 *
 * @example
 * ```ts
 * const dataset = await loadDataset("examples/dataset");
 * const { gitdir, buggyCommit } = await openIncidentRepository(dataset.incidents[0]!, { cacheDir: ".cache" });
 * ```
 */
export async function openIncidentRepository(
  incident: DatasetIncident,
  options: OpenIncidentRepositoryOptions,
): Promise<IncidentRepository> {
  const { repository } = incident;
  if (repository.kind !== "remote")
    return buildIncidentRepository(incident, {
      cacheDir: options.cacheDir,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const gitdir = await openRepository({
    source: options.mirror ?? repository.url,
    commit: repository.buggyCommit,
    cacheDir: options.cacheDir,
    signal: options.signal,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  return { gitdir, buggyCommit: repository.buggyCommit };
}
