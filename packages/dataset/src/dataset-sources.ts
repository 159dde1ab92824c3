import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, type GoldBlock } from "@distdebug/schema";
import { prepareWorkspace } from "@distdebug/workspace";
import { loadGold } from "./gold.js";
import { openIncidentRepository } from "./incident-repository.js";
import type { DatasetIncident } from "./types.js";

/** Options of {@link datasetSources}. */
export interface DatasetSourcesOptions {
  /** The incidents whose code and gold can be shown, by id. */
  incidents: ReadonlyMap<string, DatasetIncident>;
  /** The repository and base workspace cache. */
  cacheDir: string;
  /** Where the workspaces are materialized, one folder per incident; the caller removes it. */
  scratch: string;
  /** Why an incident's code cannot be shown, one line each. Default: not reported. */
  onWarning?: (message: string) => void;
  /**
   * The local mirror (a bare git folder) to read a remote incident's repository from instead
   * of cloning it (e.g. `(incident) => mirrorOf(incident, mirrors)` of @distdebug/runner).
   * Default: none, a remote repository is cloned into the cache.
   */
  mirror?: (incident: DatasetIncident) => Promise<string | undefined>;
}

/** What a report shows of an incident beside its results: its code and its gold blocks. */
export interface IncidentSources {
  /**
   * The real path of the incident's anonymized workspace at its buggy revision, materialized
   * on the first call; undefined for an unknown incident or one whose workspace cannot be
   * prepared (`onWarning` says why).
   */
  workspaceDir(incidentId: string): Promise<string | undefined>;
  /** The incident's gold blocks with their notes; undefined when unknown, unlabeled or invalid. */
  gold(incidentId: string): Promise<readonly GoldBlock[] | undefined>;
}

/** Materializes an incident's anonymized workspace into `dir` and returns its real path. */
async function materializeWorkspace(
  incident: DatasetIncident,
  options: DatasetSourcesOptions,
  dir: string,
): Promise<string> {
  const mirror = await options.mirror?.(incident);
  const repository = await openIncidentRepository(incident, {
    cacheDir: options.cacheDir,
    ...(mirror ? { mirror } : {}),
  });
  const gold = await loadGold(incident);
  await prepareWorkspace({
    source: repository.gitdir,
    commit: repository.buggyCommit,
    dir,
    needles: gold?.needles ?? [],
    cacheDir: options.cacheDir,
  });
  return realpath(dir);
}

/**
 * The code and gold of a dataset's incidents for a report (pass it to `folderSources` of
 * `@distdebug/report`): the gold from each incident's gold.json, and the code from the
 * anonymized workspace at the buggy revision, materialized once per incident into
 * `scratch` (the same tree the agent saw). A remote repository is cloned into the cache.
 *
 * @example
 * ```ts
 * const dataset = await loadDataset("examples/dataset");
 * const incidents = new Map(dataset.incidents.map((incident) => [incident.id, incident]));
 * const sources = datasetSources({ incidents, cacheDir: ".cache", scratch: "/tmp/report-code" });
 * const dir = await sources.workspaceDir("zklite-142");
 * ```
 */
export function datasetSources(options: DatasetSourcesOptions): IncidentSources {
  const workspaces = new Map<string, Promise<string | undefined>>();
  const workspaceOf = async (incidentId: string) => {
    const incident = options.incidents.get(incidentId);
    if (!incident) return undefined;
    try {
      return await materializeWorkspace(incident, options, join(options.scratch, incidentId));
    } catch (error) {
      options.onWarning?.(`${incidentId}: source code not shown: ${errorMessage(error)}`);
      return undefined;
    }
  };
  return {
    workspaceDir(incidentId) {
      let pending = workspaces.get(incidentId);
      if (!pending) {
        pending = workspaceOf(incidentId);
        workspaces.set(incidentId, pending);
      }
      return pending;
    },
    async gold(incidentId) {
      const incident = options.incidents.get(incidentId);
      if (!incident) return undefined;
      return loadGold(incident).then(
        (gold) => gold?.blocks,
        () => undefined,
      );
    },
  };
}
