import { join } from "node:path";

/** File names inside one attempt folder. */
export const ATTEMPT_FILES = {
  diagnosis: "diagnosis.json",
  trajectory: "trajectory.json",
  scores: "diagnosis_scores.json",
  attempt: "attempt.json",
} as const;

/** `results/<config>/run.json`. */
export function runInfoPath(outDir: string): string {
  return join(outDir, "run.json");
}

/** `results/<config>/summary.json`. */
export function summaryPath(outDir: string): string {
  return join(outDir, "summary.json");
}

/** `results/<config>/<incident>/attempt-<k>` (k from 1). */
export function attemptDir(outDir: string, incidentId: string, attempt: number): string {
  return join(outDir, incidentId, `attempt-${attempt}`);
}
