import type { z } from "zod";
import { Attempt } from "./attempt.js";
import { RunConfig } from "./config.js";
import { DatasetIndex } from "./dataset.js";
import { Diagnosis } from "./diagnosis.js";
import { DiagnosisScores } from "./diagnosis-scores.js";
import { Gold } from "./gold.js";
import { Incident } from "./incident.js";
import { RepoHistory } from "./repo-history.js";
import { RunInfo } from "./run.js";
import { SubmissionManifest } from "./submission.js";
import { Summary } from "./summary.js";
import { TaskManifest } from "./task.js";
import { Trajectory } from "./trajectory.js";

/** Every DistDebug file kind with its schema, current major version and usual file name. */
export const formats = {
  incident: { schema: Incident, major: 1, fileName: "incident.json", title: "incident" },
  gold: { schema: Gold, major: 1, fileName: "gold.json", title: "gold labels" },
  diagnosis: { schema: Diagnosis, major: 1, fileName: "diagnosis.json", title: "diagnosis" },
  trajectory: { schema: Trajectory, major: 1, fileName: "trajectory.json", title: "trajectory" },
  diagnosis_scores: {
    schema: DiagnosisScores,
    major: 1,
    fileName: "diagnosis_scores.json",
    title: "diagnosis scores",
  },
  attempt: { schema: Attempt, major: 1, fileName: "attempt.json", title: "attempt record" },
  run: { schema: RunInfo, major: 1, fileName: "run.json", title: "run record" },
  summary: { schema: Summary, major: 1, fileName: "summary.json", title: "summary" },
  config: { schema: RunConfig, major: 1, fileName: "config.yaml", title: "run config" },
  submission: {
    schema: SubmissionManifest,
    major: 1,
    fileName: "manifest.json",
    title: "submission manifest",
  },
  dataset: { schema: DatasetIndex, major: 1, fileName: "dataset.json", title: "dataset index" },
  task: { schema: TaskManifest, major: 1, fileName: "task.json", title: "agent task" },
  repo_history: {
    schema: RepoHistory,
    major: 1,
    fileName: "history.json",
    title: "incident repository history",
  },
} as const satisfies Record<
  string,
  { schema: z.ZodType; major: number; fileName: string; title: string }
>;

/** A DistDebug file kind: `diagnosis`, `gold`, `trajectory`, ... */
export type FormatKind = keyof typeof formats;

/** The `format` tag of a kind at its current major: `distdebug.diagnosis/1`. */
export function formatOf(kind: FormatKind): string {
  return `distdebug.${kind}/${formats[kind].major}`;
}

/** Is `kind` one of the known file kinds? */
export function isFormatKind(kind: string): kind is FormatKind {
  return Object.hasOwn(formats, kind);
}
