import type { DatasetIndex, Incident, IncidentCategory, Language } from "@distdebug/schema";
import type { DatasetProblem } from "./problems.js";

/** Where an incident's repository comes from. */
export type IncidentRepositorySource =
  /** Stored as data in the incident folder (`repo/history.json` + `repo/tree/`); built offline. */
  | { kind: "history"; dir: string; buggyCommit: string }
  /** A remote URL (the real-incident catalog): cloning it needs network. */
  | { kind: "remote"; url: string; buggyCommit: string };

/**
 * One incident of a loaded dataset, as the harness sees it. Gold labels and the fix are not
 * properties: read them with `loadGold`.
 */
export interface DatasetIncident {
  readonly id: string;
  /** Absolute path of the incident folder. */
  readonly dir: string;
  readonly incident: Incident;
  /** Has gold labels; an incident without them runs but its diagnosis cannot be scored. */
  readonly scorable: boolean;
  readonly repository: IncidentRepositorySource;
  /** What the agent of this incident sees (`incidentDigest`): part of every attempt's identity. */
  readonly digest: string;
  /**
   * The folder's digests by earlier rules (`incidentDigests`): attempts recorded with one of
   * them still match while the folder is unchanged.
   */
  readonly earlierDigests: readonly string[];
}

/** A loaded, fully validated dataset. */
export interface Dataset {
  /** Absolute path of the dataset folder. */
  readonly dir: string;
  readonly index: DatasetIndex;
  /** In the order of `dataset.json`. */
  readonly incidents: readonly DatasetIncident[];
  /** sha256 over the canonical content of every file of the dataset (for resume hashing). */
  readonly digest: string;
}

/** The counts `distdebug dataset check` prints. */
export interface DatasetCounts {
  incidents: number;
  /** Incidents with gold labels. */
  scorable: number;
  /** Incidents whose repository is remote (cloning needs network). */
  remote: number;
  /** Incidents per language (an incident with two languages counts for both). */
  languages: Record<Language, number>;
  categories: Record<IncidentCategory, number>;
  /** Incidents whose gold has two or more blocks. */
  multiBlock: number;
  /** Incidents whose report does not name the causal method. */
  reportWithoutCausalMethod: number;
  /** Incidents with no usable in-project stack trace. */
  withoutUsableStackTrace: number;
}

/** The outcome of checking a dataset folder: every problem, the notes, the counts. */
export interface DatasetCheck {
  dir: string;
  ok: boolean;
  problems: DatasetProblem[];
  /** Facts that are not problems, for example incidents that cannot be scored. */
  notes: string[];
  counts: DatasetCounts;
  /** Present when `ok`. */
  dataset?: Dataset;
}
