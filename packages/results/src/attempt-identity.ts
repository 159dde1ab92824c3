import { type Attempt, canonicalJson, sha256Hex } from "@distdebug/schema";

/**
 * What one attempt depends on: what the agent of this incident sees (the incident's
 * digest: its title, report, artifacts, languages, repository revision and data, not the
 * labeler's clue flags, category or provenance), the agent config, the harness version and
 * the attempt number. Not the rest of the dataset: adding or editing another incident leaves
 * this attempt's identity as it is.
 */
export interface AttemptIdentity {
  /** The runner's version (a harness change that alters what agents see redoes attempts). */
  readonly harnessVersion: string;
  /** sha256 of the config's identity (agent, model, environment, seed). */
  readonly configHash: string;
  readonly incidentId: string;
  /** What the agent of the incident sees (`DatasetIncident.digest`). */
  readonly incidentDigest: string;
  /** 1-based. */
  readonly attempt: number;
}

/**
 * The input hash of one attempt ({@link AttemptIdentity}): resume reuses an attempt only
 * when its `attempt.json` carries this exact hash.
 *
 * @example
 * ```ts
 * const inputHash = attemptInputHash({ harnessVersion, configHash, incidentId: "zklite-142", incidentDigest: incident.digest, attempt: 1 });
 * ```
 */
export function attemptInputHash(identity: AttemptIdentity): string {
  return sha256Hex(
    canonicalJson({
      harness: identity.harnessVersion,
      config: identity.configHash,
      incident: identity.incidentId,
      incidentDigest: identity.incidentDigest,
      attempt: identity.attempt,
    }),
  );
}

/**
 * The input hash that attempts written before per-incident identities carried (no
 * `incidentDigest` in attempt.json): it covered the whole dataset's digest.
 */
export function legacyAttemptInputHash(
  identity: Omit<AttemptIdentity, "incidentDigest"> & { datasetDigest: string },
): string {
  return sha256Hex(
    canonicalJson({
      harness: identity.harnessVersion,
      config: identity.configHash,
      dataset: identity.datasetDigest,
      incident: identity.incidentId,
      attempt: identity.attempt,
    }),
  );
}

/** How an attempt's record relates to the inputs it is checked against. */
export type AttemptMatch =
  /** Made for exactly these inputs. */
  | "current"
  /**
   * Same inputs, hashed by an earlier rule: written before per-incident identities for this
   * whole dataset, or with an earlier rule of the incident digest for this incident folder.
   */
  | "legacy"
  /** Made for other inputs (another config, harness, or version of the incident). */
  | "stale";

/**
 * Whether an attempt's record was made for these inputs. A record whose `incidentDigest` is
 * one of `earlierIncidentDigests` (the unchanged folder hashed by an earlier rule) matches
 * as `legacy` when its hash is that digest's input hash. A record without `incidentDigest`
 * (written before per-incident identities) matches as `legacy` when its hash is the old
 * whole-dataset hash of `datasetDigest`: the dataset has not changed since, so neither has
 * its incident.
 *
 * @example
 * ```ts
 * const match = matchAttempt(record, { harnessVersion, configHash, incidentId, incidentDigest, attempt, datasetDigest });
 * if (match === "stale") redo();
 * ```
 */
export function matchAttempt(
  record: Pick<Attempt, "inputHash" | "incidentDigest">,
  identity: AttemptIdentity & {
    datasetDigest?: string;
    earlierIncidentDigests?: readonly string[];
  },
): AttemptMatch {
  const { datasetDigest, earlierIncidentDigests, ...current } = identity;
  const recorded = record.incidentDigest;
  if (recorded !== undefined) {
    if (recorded === current.incidentDigest)
      return record.inputHash === attemptInputHash(current) ? "current" : "stale";
    return earlierIncidentDigests?.includes(recorded) &&
      record.inputHash === attemptInputHash({ ...current, incidentDigest: recorded })
      ? "legacy"
      : "stale";
  }
  if (datasetDigest === undefined) return "stale";
  return record.inputHash === legacyAttemptInputHash({ ...current, datasetDigest })
    ? "legacy"
    : "stale";
}
