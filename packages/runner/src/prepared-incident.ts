import { resolve } from "node:path";
import {
  type DatasetIncident,
  type IncidentTask,
  incidentTask,
  loadGold,
  openIncidentRepository,
} from "@distdebug/dataset";
import type { OwnedFolder } from "@distdebug/sandbox";
import type { Gold } from "@distdebug/schema";
import {
  checkLeakage,
  prepareWorkspace,
  type WorkspaceCopyProof,
  type WorkspaceEvent,
} from "@distdebug/workspace";
import { createIncidentScorer, type IncidentScorer } from "./attempt-scoring.js";
import { findMirror, type MirrorOptions } from "./find-mirror.js";

/**
 * One incident made ready for its attempts, once: its repository built into the cache, its
 * gold and needles, the agent's task view and a scorer over the pristine buggy revision.
 */
export interface PreparedIncident {
  readonly incident: DatasetIncident;
  readonly task: IncidentTask;
  /** Undefined for incidents without labels (the catalog): their attempts are not scored. */
  readonly gold: Gold | undefined;
  /**
   * Copies the anonymized workspace at the buggy revision into `dir` (from the base cache).
   * With `owner`, every entry of the copy is created as that user; the result says so, for
   * `AttemptSandbox.open`'s `ownedWorkspace` (undefined without `owner`).
   */
  materialize(dir: string, options?: MaterializeOptions): Promise<OwnedFolder | undefined>;
  /** Leak findings in a prepared workspace, as one line each; empty when clean. */
  checkLeakage(dir: string): Promise<string[]>;
  /**
   * Scores the incident's attempts on the pristine buggy revision read from the object store
   * (see `scoreAttemptFolder`); undefined for incidents without labels.
   */
  readonly scorer: IncidentScorer | undefined;
  /** Stops the scorer (its object reader; the worker also stops by itself after a minute idle). */
  close(): Promise<void>;
}

/** Options of {@link PreparedIncident.materialize}. */
export interface MaterializeOptions {
  signal?: AbortSignal;
  /** The workspace's events. */
  onEvent?: (event: WorkspaceEvent) => void;
  /** The user and group the copy's entries are created as (`AttemptSandbox.workspaceOwner`). */
  owner?: { uid: number; gid: number } | undefined;
}

/** Options of {@link prepareIncident}. */
export interface PrepareIncidentOptions {
  incident: DatasetIncident;
  cacheDir: string;
  signal?: AbortSignal;
  /** The workspace's events of preparing the incident (the clone of a remote repository). */
  onEvent?: (event: WorkspaceEvent) => void;
  /** Local mirrors of remote repositories, used instead of a clone (see {@link findMirror}). */
  mirrors?: MirrorOptions;
  /** The scorer's row-count cache (see `countCacheDirOf`). Default none (this process only). */
  countCacheDir?: string | undefined;
}

/** The local mirror of a remote incident's repository, if `mirrors` has one. */
export async function mirrorOf(
  incident: DatasetIncident,
  mirrors: MirrorOptions | undefined,
): Promise<string | undefined> {
  if (incident.repository.kind !== "remote" || !mirrors) return undefined;
  return findMirror(incident.repository.url, mirrors);
}

/**
 * Prepares an incident for its attempts (see {@link PreparedIncident}). A repository stored
 * as data is built offline; a remote one (the catalog) is read from its local mirror in
 * `mirrors`, else cloned once into the cache, which needs network. Scoring reads the buggy
 * revision from the repository's object store, never an agent's possibly edited copy.
 */
export async function prepareIncident(options: PrepareIncidentOptions): Promise<PreparedIncident> {
  const { incident, cacheDir } = options;
  const repository = await openIncidentRepository(incident, {
    cacheDir,
    mirror: await mirrorOf(incident, options.mirrors),
    signal: options.signal,
    onEvent: options.onEvent,
  });
  const gold = await loadGold(incident);
  const task = await incidentTask(incident);
  const needles = gold?.needles ?? [];
  // What each copy was proven to be as it was made: the leakage verdict of its base is reused.
  const copyProofs = new Map<string, WorkspaceCopyProof>();
  const materialize = async (dir: string, { signal, onEvent, owner }: MaterializeOptions = {}) => {
    const result = await prepareWorkspace({
      source: repository.gitdir,
      commit: repository.buggyCommit,
      dir,
      needles,
      cacheDir,
      ...(owner ? { owner } : {}),
      ...(signal ? { signal } : {}),
      ...(onEvent ? { onEvent } : {}),
    });
    if (result.copyProof) copyProofs.set(result.dir, result.copyProof);
    return result.owner ? { dir: result.dir, owner: result.owner } : undefined;
  };
  const scorer = gold
    ? createIncidentScorer({
        incident,
        gold,
        repository: async () => repository,
        countCacheDir: options.countCacheDir,
      })
    : undefined;
  return {
    incident,
    task,
    gold,
    materialize,
    async checkLeakage(dir) {
      const copyProof = copyProofs.get(resolve(dir));
      copyProofs.delete(resolve(dir));
      const report = await checkLeakage({
        dir,
        ...(copyProof ? { copyProof } : {}),
        needles,
        ...(gold ? { fix: { repo: repository.gitdir, commit: gold.fix.commit } } : {}),
      });
      return report.findings.map(
        (finding) => `${finding.kind} in ${finding.file}${finding.line ? `:${finding.line}` : ""}`,
      );
    },
    scorer,
    async close() {
      await scorer?.close();
    },
  };
}
