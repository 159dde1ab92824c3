import {
  type DatasetIncident,
  type IncidentTask,
  incidentTask,
  loadGold,
  openIncidentRepository,
} from "@distdebug/dataset";
import {
  createDirectoryScorer,
  type DirectoryScorer,
  scoreMissingDiagnosis,
} from "@distdebug/evaluator";
import {
  type Diagnosis,
  type DiagnosisScores,
  DistDebugError,
  type Gold,
  type Trajectory,
} from "@distdebug/schema";
import { checkLeakage, prepareWorkspace, type WorkspaceEvent } from "@distdebug/workspace";
import { findMirror, type MirrorOptions } from "./find-mirror.js";

/**
 * One incident made ready for its attempts, once: its repository built into the cache, its
 * gold and needles, the agent's task view and a scorer over the pristine buggy tree.
 */
export interface PreparedIncident {
  readonly incident: DatasetIncident;
  readonly task: IncidentTask;
  /** Undefined for incidents without labels (the catalog): their attempts are not scored. */
  readonly gold: Gold | undefined;
  /**
   * Copies the anonymized workspace at the buggy revision into `dir` (from the base cache),
   * passing the workspace's events to `onEvent`.
   */
  materialize(
    dir: string,
    signal?: AbortSignal,
    onEvent?: (event: WorkspaceEvent) => void,
  ): Promise<void>;
  /** Leak findings in a prepared workspace, as one line each; empty when clean. */
  checkLeakage(dir: string): Promise<string[]>;
  /**
   * Scores a diagnosis (undefined: none valid) against the gold, in a worker thread within the
   * scoring deadline; undefined when not scorable. With the attempt's trajectory (null: it has
   * none) the scores carry the search path.
   */
  score(
    diagnosis: Diagnosis | undefined,
    incidentId: string,
    trajectory?: Trajectory | null,
  ): Promise<DiagnosisScores | undefined>;
  /** Stops the scorer's worker thread (it also stops by itself after a minute idle). */
  close(): Promise<void>;
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
}

/** The local mirror of a remote incident's repository, if `mirrors` has one. */
async function mirrorOf(
  incident: DatasetIncident,
  mirrors: MirrorOptions | undefined,
): Promise<string | undefined> {
  if (incident.repository.kind !== "remote" || !mirrors) return undefined;
  return findMirror(incident.repository.url, mirrors);
}

/**
 * Prepares an incident for its attempts (see {@link PreparedIncident}). A repository stored
 * as data is built offline; a remote one (the catalog) is read from its local mirror in
 * `mirrors`, else cloned once into the cache, which needs network. Scoring always reads the
 * base workspace in the cache, never an agent's possibly edited copy.
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
  let baseDir: string | undefined;
  const materialize = async (
    dir: string,
    signal?: AbortSignal,
    onEvent?: (event: WorkspaceEvent) => void,
  ) => {
    const result = await prepareWorkspace({
      source: repository.gitdir,
      commit: repository.buggyCommit,
      dir,
      needles,
      cacheDir,
      ...(signal ? { signal } : {}),
      ...(onEvent ? { onEvent } : {}),
    });
    baseDir ??= result.baseDir ?? dir;
  };
  let scorer: DirectoryScorer | undefined;
  return {
    incident,
    task,
    gold,
    materialize,
    async checkLeakage(dir) {
      const report = await checkLeakage({
        dir,
        needles,
        ...(gold ? { fix: { repo: repository.gitdir, commit: gold.fix.commit } } : {}),
      });
      return report.findings.map(
        (finding) => `${finding.kind} in ${finding.file}${finding.line ? `:${finding.line}` : ""}`,
      );
    },
    async score(diagnosis, incidentId, trajectory) {
      if (!gold) return undefined;
      const missingReason = "no valid diagnosis";
      // Without a trajectory (or a workspace to read the gold's text from) nothing needs the tree.
      if (!diagnosis && (trajectory === undefined || !baseDir))
        return scoreMissingDiagnosis({ gold, reason: missingReason });
      if (!baseDir)
        throw new DistDebugError({
          code: "INTERNAL",
          message: `${incidentId}: score() was called before prepare() made the workspace; call prepare() first`,
          data: { incidentId },
        });
      // In a worker thread with a deadline: scoring never holds up the event loop that serves
      // running attempts, and a diagnosis that outlasts the deadline scores as invalid.
      scorer ??= createDirectoryScorer({ root: baseDir });
      return scorer.score({
        diagnosis,
        gold,
        ...(trajectory === undefined ? {} : { trajectory }),
        ...(diagnosis ? {} : { missingReason }),
      });
    },
    async close() {
      await scorer?.close();
    },
  };
}
