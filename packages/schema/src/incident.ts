import { z } from "zod";
import { CommitId, formatTag, Language, RepoPath } from "./common.js";

/** Fault categories of the benchmark. */
export const IncidentCategory = z.enum([
  "logic",
  "concurrency",
  "error-handling",
  "configuration",
  "resource",
  "other",
]);
/** A fault category. */
export type IncidentCategory = z.infer<typeof IncidentCategory>;

/** Where an incident's repository comes from. */
export const RepositoryRef = z.strictObject({
  /** Clone URL (`https://github.com/apache/zookeeper`) or a path relative to the incident folder. */
  url: z.string().min(1),
  /** The buggy revision the agent sees. */
  buggyCommit: CommitId,
});
/** Where an incident's repository comes from. */
export type RepositoryRef = z.infer<typeof RepositoryRef>;

/** An artifact the agent gets beside the report. */
export const Artifact = z.strictObject({
  /** Path relative to the incident folder, for example `logs/server-2.log`. */
  path: RepoPath,
  kind: z.enum(["log", "stack-trace", "other"]),
  description: z.string().optional(),
});
/** An artifact the agent gets beside the report. */
export type Artifact = z.infer<typeof Artifact>;

/**
 * Where a real incident's facts come from. Catalog incidents carry it; the report is always
 * written for the catalog, never copied from the tracker.
 */
export const Provenance = z.strictObject({
  /** The issue key or URL, for example `ZOOKEEPER-2845` or `https://github.com/etcd-io/etcd/issues/17529`. */
  issue: z.string().min(1),
  /** Links to where the report can be read (tracker, pull request, mailing-list copy). */
  links: z.array(z.string().min(1)).default([]),
  /** The fix commit(s), oldest first; the buggy commit is the parent of the first. */
  fixCommits: z.array(CommitId).min(1),
  /** The repository the commit ids belong to, `owner/name`, for example `apache/hadoop-hdfs`. */
  repository: z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, "owner/name"),
  /** The upstream project when `repository` is a copy or fork, for example `apache/hadoop`. */
  upstream: z.string().min(1).optional(),
  /** Fixed text: the report and artifacts were written for this catalog. */
  text: z.literal("report written for this catalog"),
  /** Anything a reviewer should know (what the report is based on, what was reconstructed). */
  note: z.string().optional(),
});
/** Where a real incident's facts come from. */
export type Provenance = z.infer<typeof Provenance>;

/** `incident.json`: one incident of a dataset, as the agent and the runner see it. */
export const Incident = z.strictObject({
  format: formatTag("incident", 1),
  /** Stable id, `<system>-<number>`, for example `zookeeper-2845`. */
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "a lowercase id such as zookeeper-2845"),
  title: z.string().min(1),
  /** The system, for example `zookeeper`, `etcd`, `tikv`. */
  system: z.string().min(1),
  languages: z.array(Language).min(1),
  repository: RepositoryRef,
  category: IncidentCategory,
  clues: z.strictObject({
    /** Does the report name the causal method? */
    reportNamesCausalMethod: z.boolean(),
    /** Is there a usable stack trace with in-project frames? */
    usableStackTrace: z.boolean(),
  }),
  /** The report file, relative to the incident folder. */
  report: RepoPath.default("report.md"),
  artifacts: z.array(Artifact).default([]),
  /** Where the facts of a real incident come from (required in the catalog). */
  provenance: Provenance.optional(),
});
/** `incident.json`. */
export type Incident = z.infer<typeof Incident>;
