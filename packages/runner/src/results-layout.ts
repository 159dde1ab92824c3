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

/** `results/<config>/.run.lock`: held by the one run writing the folder. */
export function runLockPath(outDir: string): string {
  return join(outDir, ".run.lock");
}

/** `results/<config>/summary.json`. */
export function summaryPath(outDir: string): string {
  return join(outDir, "summary.json");
}

/** `results/<config>/<incident>/attempt-<k>` (k from 1). */
export function attemptDir(outDir: string, incidentId: string, attempt: number): string {
  return join(outDir, incidentId, `attempt-${attempt}`);
}

/**
 * A hidden sibling of an attempt folder: `partial` while the attempt is built, `replaced` for
 * the folder it replaces, moved aside until the new one is in place. `tag` makes it unique.
 */
export function attemptAsideDir(
  outDir: string,
  incidentId: string,
  attempt: number,
  kind: "partial" | "replaced",
  tag: string,
): string {
  return join(outDir, incidentId, `.attempt-${attempt}.${kind}-${tag}`);
}

/** True for the name of an {@link attemptAsideDir} folder (a killed run's leftover). */
export function isAttemptAsideName(name: string): boolean {
  return /^\.attempt-\d+\.(partial|replaced)-/.test(name);
}

/** Start of an attempt's working folder name under the cache's `tmp/` (pid: whose it is). */
export function workDirPrefix(incidentId: string, attempt: number): string {
  return `${incidentId}-a${attempt}-p${process.pid}-`;
}

/** The pid in a working folder's name (see {@link workDirPrefix}), or undefined. */
export function workDirOwner(name: string): number | undefined {
  const match = /-a\d+-p(\d+)-[^-]*$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
