import { z } from "zod";
import { formatTag, Sha256, Timestamp, Usage } from "./common.js";

/** What the leakage scan of a trajectory looks for. */
export const LeakKind = z.enum([
  /** Commands that read version-control history: `git log --all`, `git reflog`, `git show <commit>`. */
  "history",
  /** Network tools and URLs: `curl`, `wget`, `git clone https://…`, `pip install`. */
  "network",
  /** Reads outside `/workspace`, `/task`, `/output` and `/tmp`: `/home`, `/etc`, `~`. */
  "outside-workspace",
]);
/** What the leakage scan of a trajectory looks for. */
export type LeakKind = z.infer<typeof LeakKind>;

/** One suspicious command found in a trajectory by the leakage scan. */
export const LeakFinding = z.strictObject({
  incidentId: z.string(),
  attempt: z.number().int().min(1),
  /** 0-based index of the step in `trajectory.json`. */
  step: z.number().int().min(0),
  kind: LeakKind,
  /** The rule that matched, in words, for example `git log --all reads every branch's history`. */
  rule: z.string(),
  /** The command as the agent ran it (clipped to 500 characters). */
  command: z.string(),
});
/** One suspicious command found in a trajectory. */
export type LeakFinding = z.infer<typeof LeakFinding>;

/**
 * `manifest.json` of a submission archive (`distdebug package`): who and what produced the
 * results, the counts, the leakage scan, and the sha256 of every other file of the archive.
 */
export const SubmissionManifest = z.strictObject({
  format: formatTag("submission", 1),
  createdAt: Timestamp,
  /** The configuration's name (run.json `name`). */
  name: z.string().min(1),
  model: z.strictObject({ provider: z.string().optional(), name: z.string() }),
  harness: z.strictObject({
    name: z.string(),
    version: z.string(),
    /** The DistDebug harness version that ran the attempts (run.json `harness.version`). */
    distdebug: z.string().optional(),
  }),
  /** The dataset the run used (run.json `dataset`, without the local path). */
  dataset: z.strictObject({ name: z.string(), version: z.string(), digest: Sha256 }),
  /** The run settings (config without secrets). */
  settings: z.record(z.string(), z.unknown()),
  /** Token use and cost summed over every packaged attempt; cost null when any is unknown. */
  usage: Usage,
  counts: z.strictObject({
    incidents: z.number().int().min(0),
    attempts: z.number().int().min(0),
    /** Attempts expected per incident. */
    attemptsPerIncident: z.number().int().min(1).default(1),
    /** Attempts that ended `agent-error` or `limit-exceeded` (scored 0, counted). */
    failedAttempts: z.number().int().min(0).default(0),
  }),
  /** The trajectory scan at packaging time; findings are listed when packaging was allowed anyway. */
  leakage: z
    .strictObject({ scanned: z.number().int().min(0), findings: z.array(LeakFinding) })
    .default({ scanned: 0, findings: [] }),
  /** Every file of the archive but manifest.json, sorted by path. */
  files: z.array(
    z.strictObject({ path: z.string(), sha256: Sha256, bytes: z.number().int().min(0) }),
  ),
});
/** `manifest.json` of a submission archive. */
export type SubmissionManifest = z.infer<typeof SubmissionManifest>;
