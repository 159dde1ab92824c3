import { buildIncidentRepository, type DatasetIncident } from "@distdebug/dataset";
import { openRepository, type WorkspaceEvent } from "@distdebug/workspace";
import { findMirror, type MirrorOptions } from "./find-mirror.js";

/** An incident's repository in the cache: its git folder and the buggy commit. */
export interface IncidentRepository {
  gitdir: string;
  buggyCommit: string;
}

/** Options of {@link openIncidentRepository}. */
export interface OpenIncidentRepositoryOptions {
  incident: DatasetIncident;
  cacheDir: string;
  /** Local mirrors of remote repositories, used instead of a clone (see {@link findMirror}). */
  mirrors?: MirrorOptions | undefined;
  signal?: AbortSignal | undefined;
  /** The workspace's events of opening it (the clone of a remote repository). */
  onEvent?: ((event: WorkspaceEvent) => void) | undefined;
}

/**
 * The incident's repository: one stored as data is built offline into the cache; a remote one
 * (the catalog) is read from its local mirror in `mirrors`, else cloned once into the cache,
 * which needs network.
 */
export async function openIncidentRepository(
  options: OpenIncidentRepositoryOptions,
): Promise<IncidentRepository> {
  const { incident, cacheDir } = options;
  if (incident.repository.kind !== "remote")
    return buildIncidentRepository(incident, {
      cacheDir,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const mirror = options.mirrors && (await findMirror(incident.repository.url, options.mirrors));
  return {
    gitdir: await openRepository({
      source: mirror ?? incident.repository.url,
      commit: incident.repository.buggyCommit,
      cacheDir,
      signal: options.signal,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    }),
    buggyCommit: incident.repository.buggyCommit,
  };
}
