import { join } from "node:path";
import type { DatasetIncident, IncidentRepository } from "@distdebug/dataset";
import {
  createDirectoryScorer,
  DEFAULT_EVALUATOR_PARAMETERS,
  type DirectoryScorer,
  EVALUATOR_VERSION,
  GRAMMAR_VERSIONS,
} from "@distdebug/evaluator";
import { type AttemptFile, readAttempt } from "@distdebug/results";
import {
  type AttemptStatus,
  canonicalJson,
  type Diagnosis,
  type DiagnosisScores,
  type Gold,
  serialize,
  sha256Hex,
  type Trajectory,
} from "@distdebug/schema";
import { openRevisionFiles, type RevisionFiles } from "@distdebug/workspace";

/**
 * Scores the diagnoses of one incident's attempts against its gold, on its buggy revision
 * read straight from the repository's object store (no workspace is prepared or copied), in
 * the shared scoring worker within the scoring deadline.
 */
export interface IncidentScorer {
  readonly incidentId: string;
  /**
   * sha256 of what every score of this incident depends on besides an attempt's own files:
   * the incident (its buggy revision), the gold labels, the evaluator's version, grammars and
   * parameters.
   */
  readonly basis: string;
  /** Scores a diagnosis (undefined: none valid) with the attempt's trajectory (null: none). */
  score(diagnosis: Diagnosis | undefined, trajectory: Trajectory | null): Promise<DiagnosisScores>;
  /** Stops the revision's object reader and lets go of the worker's evaluator. */
  close(): Promise<void>;
}

/**
 * The folder of the scorer's row-count cache in a cache folder (`<cacheDir>/row-counts`), or
 * undefined when `countCache` is false (counts then live for the process only).
 */
export function countCacheDirOf(cacheDir: string, countCache = true): string | undefined {
  return countCache ? join(cacheDir, "row-counts") : undefined;
}

/** The reason recorded in the scores of an attempt without a valid diagnosis. */
const MISSING_REASON = "no valid diagnosis";

/**
 * What every score of an incident depends on besides an attempt's files: the incident id and
 * digest (which covers its repository revision), the gold labels (canonical JSON, so only a
 * change of labels counts), the evaluator's version, grammar versions and parameters.
 */
export function scoreBasis(incident: DatasetIncident, gold: Gold): string {
  return sha256Hex(
    canonicalJson({
      incident: incident.id,
      incidentDigest: incident.digest,
      gold: sha256Hex(canonicalJson(gold)),
      evaluator: EVALUATOR_VERSION,
      grammars: GRAMMAR_VERSIONS,
      parameters: DEFAULT_EVALUATOR_PARAMETERS,
    }),
  );
}

/**
 * A scorer of one incident's diagnoses ({@link IncidentScorer}). Nothing is opened until the
 * first `score`: reusing every attempt's scores never touches the repository.
 */
export function createIncidentScorer(options: {
  incident: DatasetIncident;
  gold: Gold;
  /** Opens the incident's repository (built or cloned into the cache), on the first score. */
  repository: () => Promise<IncidentRepository>;
  /**
   * Where the repository size's row counts are kept across processes (by blob id, see
   * {@link countCacheDirOf}). Default none: shared within the process only.
   */
  countCacheDir?: string | undefined;
}): IncidentScorer {
  const { incident, gold } = options;
  let opened: Promise<{ files: RevisionFiles; scorer: DirectoryScorer }> | undefined;
  /** Scores not yet settled: the object reader stops when none is left. */
  let scoring = 0;
  const open = async () => {
    const repository = await options.repository();
    const files = await openRevisionFiles({
      source: repository.gitdir,
      commit: repository.buggyCommit,
      // The text the agent was shown: the workspace's, with the same needles scrubbed.
      needles: gold.needles ?? [],
    });
    const { countCacheDir } = options;
    // R counts each distinct blob once per process (and cache) from `files.contents`.
    const scorer = createDirectoryScorer({
      root: files,
      ...(countCacheDir ? { countCacheDir } : {}),
    });
    return { files, scorer };
  };
  return {
    incidentId: incident.id,
    basis: scoreBasis(incident, gold),
    async score(diagnosis, trajectory) {
      scoring += 1;
      opened ??= open();
      try {
        const { scorer } = await opened;
        return await scorer.score({
          diagnosis,
          gold,
          trajectory,
          ...(diagnosis ? {} : { missingReason: MISSING_REASON }),
        });
      } finally {
        // An idle `git cat-file` would keep the process alive: it starts again on the next read.
        scoring -= 1;
        if (scoring === 0) await (await opened.catch(() => undefined))?.files.close();
      }
    },
    async close() {
      const closing = await opened?.catch(() => undefined);
      opened = undefined;
      await closing?.scorer.close();
      await closing?.files.close();
    },
  };
}

/** How an attempt's scores came to be. */
export interface AttemptScoring {
  scores: DiagnosisScores;
  /** `diagnosis_scores.json` as it is (reused) or should be written. */
  text: string;
  /** The file was made from these very inputs and kept as it is; nothing was scored. */
  reused: boolean;
  /** The text differs from the attempt folder's diagnosis_scores.json (or it has none). */
  changed: boolean;
}

/** Options of {@link scoreAttemptFolder}. */
export interface ScoreAttemptFolderOptions {
  /** The attempt folder (or its staging folder) holding diagnosis.json and trajectory.json. */
  dir: string;
  /** The attempt's status: only a `succeeded` attempt's diagnosis is scored (STATS.md). */
  status: AttemptStatus;
  scorer: IncidentScorer;
  /** Keep a diagnosis_scores.json whose `inputHash` matches. Default false (always rescore). */
  reuse?: boolean;
  /** How messages name the folder (`zklite-142/attempt-1`). Default its path. */
  label?: string;
}

/** The bytes scored, or undefined for a file that is missing or not valid. */
function validBytes(file: AttemptFile<unknown>): Buffer | undefined {
  return file.state === "valid" ? file.bytes : undefined;
}

/**
 * The `inputHash` of an attempt's scores: the incident's {@link scoreBasis} with the bytes of
 * the diagnosis scored (none for a failed attempt or an invalid diagnosis) and of the
 * trajectory the search path is read from (none when missing or invalid).
 */
export function attemptScoresHash(
  basis: string,
  diagnosis: Uint8Array | undefined,
  trajectory: Uint8Array | undefined,
): string {
  return sha256Hex(
    canonicalJson({
      basis,
      diagnosis: diagnosis ? sha256Hex(diagnosis) : null,
      trajectory: trajectory ? sha256Hex(trajectory) : null,
    }),
  );
}

/**
 * The one scoring path of an attempt, used by `runAttempt`, `score` and `verify`: reads the
 * folder's diagnosis (a `succeeded` attempt's only) and trajectory with their size limits,
 * hashes them with the incident's basis into the scores' `inputHash`, and keeps the folder's
 * diagnosis_scores.json when `reuse` is set and its `inputHash` matches; otherwise scores them
 * on the buggy revision. Same inputs, same bytes.
 *
 * @example
 * ```ts
 * const { text, reused, changed } = await scoreAttemptFolder({ dir, status: record.status, scorer, reuse: true });
 * if (changed) await writeFileAtomic(join(dir, ATTEMPT_FILES.scores), text);
 * ```
 */
export async function scoreAttemptFolder(
  options: ScoreAttemptFolderOptions,
): Promise<AttemptScoring> {
  const reuse = options.reuse ?? false;
  const folder = await readAttempt(options.dir, {
    files: ["diagnosis", "trajectory", "scores"],
    ...(options.label ? { label: options.label } : {}),
  });
  const diagnosis = options.status === "succeeded" ? folder.diagnosis : undefined;
  const inputHash = attemptScoresHash(
    options.scorer.basis,
    diagnosis && validBytes(diagnosis),
    validBytes(folder.trajectory),
  );
  const previous = folder.scores.state === "valid" ? folder.scores : undefined;
  if (reuse && previous?.value.inputHash === inputHash)
    return {
      scores: previous.value,
      text: previous.bytes.toString("utf8"),
      reused: true,
      changed: false,
    };
  const scored = await options.scorer.score(
    diagnosis?.state === "valid" ? diagnosis.value : undefined,
    folder.trajectory.state === "valid" ? folder.trajectory.value : null,
  );
  const scores: DiagnosisScores = { ...scored, inputHash };
  const text = serialize(scores);
  return { scores, text, reused: false, changed: previous?.bytes.toString("utf8") !== text };
}
