import type { DatasetIncident } from "@distdebug/dataset";
import type { RunEventListener } from "./events.js";
import type { MirrorOptions } from "./find-mirror.js";
import { type PreparedIncident, prepareIncident } from "./prepared-incident.js";

/** Options of {@link incidentPreparer}. */
export interface IncidentPreparerOptions {
  cacheDir: string;
  /** The scorer's row-count cache (see `countCacheDirOf`). Default none (this process only). */
  countCacheDir?: string | undefined;
  mirrors?: MirrorOptions | undefined;
  signal?: AbortSignal | undefined;
  /** Receives each preparation's workspace events as `incident-workspace`. */
  onEvent: RunEventListener;
}

/** A run's prepare cache ({@link incidentPreparer}). */
export interface IncidentPreparer {
  /** The incident prepared once, on its first call; every attempt of it shares the result. */
  prepare(incident: DatasetIncident): Promise<PreparedIncident>;
  /** Closes the incident once its last attempt is done (its scorer); a later call prepares it again. */
  release(incident: DatasetIncident): Promise<void>;
  /** Closes every incident still prepared; a failed preparation is skipped. */
  close(): Promise<void>;
}

/**
 * A run's prepare cache: each incident is prepared once (repository, base workspace, gold,
 * scorer) on its first call, and every attempt of it shares the result; `close` ends them.
 */
export function incidentPreparer(options: IncidentPreparerOptions): IncidentPreparer {
  const prepared = new Map<string, Promise<PreparedIncident>>();
  const prepare = (incident: DatasetIncident) => {
    let entry = prepared.get(incident.id);
    if (!entry) {
      entry = prepareIncident({
        incident,
        cacheDir: options.cacheDir,
        countCacheDir: options.countCacheDir,
        ...(options.signal ? { signal: options.signal } : {}),
        onEvent: (event) =>
          options.onEvent({ type: "incident-workspace", incidentId: incident.id, event }),
        ...(options.mirrors ? { mirrors: options.mirrors } : {}),
      });
      // Awaited by each attempt, which records a failure as its infra error; until then the
      // rejection must not count as unhandled (Node would end the process).
      entry.catch(() => {});
      prepared.set(incident.id, entry);
    }
    return entry;
  };
  const closeEntry = async (entry: Promise<PreparedIncident> | undefined) =>
    (await entry?.catch(() => undefined))?.close();
  return {
    prepare,
    async release(incident) {
      const entry = prepared.get(incident.id);
      prepared.delete(incident.id);
      await closeEntry(entry);
    },
    async close() {
      const entries = [...prepared.values()];
      prepared.clear();
      for (const entry of entries) await closeEntry(entry);
    },
  };
}
