import { z } from "zod";
import { formatTag, Language } from "./common.js";
import { Artifact } from "./incident.js";

/** An artifact listed in `task.json`: its path in the task folder, its kind, its description. */
const TaskArtifact = z.strictObject({
  /** Relative to the task folder, for example `logs/server-2.log`. */
  path: z.string().min(1),
  kind: Artifact.shape.kind,
  description: z.string().optional(),
});

/**
 * `task.json`, at `/task/task.json` inside the sandbox: the index of the folder an agent reads.
 * It names the incident, the report and artifacts beside it, and where the repository and the
 * output folder are; it carries no gold, fix or clue information.
 */
export const TaskManifest = z.strictObject({
  format: formatTag("task", 1),
  id: z.string().min(1),
  title: z.string(),
  system: z.string(),
  languages: z.array(Language),
  /** The report, relative to the task folder. */
  report: z.literal("report.md"),
  artifacts: z.array(TaskArtifact),
  /** Where the repository is inside the sandbox. */
  workspace: z.literal("/workspace"),
  /** Where the agent writes diagnosis.json and trajectory.json. */
  output: z.literal("/output"),
});
/** `task.json`. */
export type TaskManifest = z.infer<typeof TaskManifest>;
