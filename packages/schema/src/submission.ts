import { z } from "zod";
import { formatTag, Sha256, Timestamp, Usage } from "./common.js";

/** `manifest.json` of a submission archive. */
export const SubmissionManifest = z.object({
  format: formatTag("submission", 1),
  createdAt: Timestamp,
  model: z.object({ provider: z.string().optional(), name: z.string() }),
  harness: z.object({ name: z.string(), version: z.string() }),
  /** The run settings (config without secrets). */
  settings: z.record(z.string(), z.unknown()),
  usage: Usage,
  counts: z.object({ incidents: z.number().int().min(0), attempts: z.number().int().min(0) }),
  files: z.array(z.object({ path: z.string(), sha256: Sha256, bytes: z.number().int().min(0) })),
});
/** `manifest.json` of a submission archive. */
export type SubmissionManifest = z.infer<typeof SubmissionManifest>;
