import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@distdebug/schema";
import { attemptDir } from "./layout.js";
import { redactSecrets } from "./redact.js";

/**
 * A hidden sibling of an attempt folder: `partial` while the attempt is built, `replaced` for
 * the folder it replaces, moved aside until the new one is in place. `tag` makes it unique.
 */
function asideDir(
  outDir: string,
  incidentId: string,
  attempt: number,
  kind: "partial" | "replaced",
  tag: string,
): string {
  return join(outDir, incidentId, `.attempt-${attempt}.${kind}-${tag}`);
}

/** True for the name of an {@link asideDir} folder (a killed run's leftover). */
function isAsideName(name: string): boolean {
  return /^\.attempt-\d+\.(partial|replaced)-/.test(name);
}

/** An attempt folder being written: files go to a hidden staging folder until `commit`. */
export interface StagedAttemptFolder {
  /** The staging folder (a hidden sibling of the attempt folder). */
  readonly dir: string;
  /**
   * Writes one file of the attempt into the staging folder, atomically, with the folder's
   * secrets redacted; returns what was written (hash that, not the input).
   */
  write(name: string, data: string | Uint8Array): Promise<string | Uint8Array>;
  /**
   * Puts the staged folder in place of the attempt folder and returns the attempt folder's
   * path. An earlier folder (an interrupted or redone attempt) is moved aside first and
   * removed after, so the window without an attempt folder is two renames long.
   */
  commit(): Promise<string>;
}

/**
 * Starts writing an attempt folder atomically: it is either complete or absent, never half
 * written, and never holds the given secrets. Files are written into a hidden staging folder beside it, which `commit` renames
 * into place. A process killed before `commit` leaves the staging folder behind; the next
 * run removes it with {@link removeAttemptLeftovers}.
 *
 * @example
 * ```ts
 * const folder = await stageAttemptFolder({ outDir: "results/baseline", incidentId: "zklite-142", attempt: 1 });
 * await folder.write(ATTEMPT_FILES.diagnosis, text);
 * await folder.write(ATTEMPT_FILES.attempt, serialize(record));
 * await folder.commit(); // "results/baseline/zklite-142/attempt-1"
 * ```
 */
export async function stageAttemptFolder(options: {
  outDir: string;
  incidentId: string;
  attempt: number;
  /** Values replaced by `[REDACTED]` in every file written (the model's API key). */
  secrets?: readonly string[];
}): Promise<StagedAttemptFolder> {
  const { outDir, incidentId, attempt } = options;
  const tag = randomBytes(4).toString("hex");
  const staging = asideDir(outDir, incidentId, attempt, "partial", tag);
  await mkdir(staging, { recursive: true });
  return {
    dir: staging,
    async write(name, data) {
      const written = redactSecrets(data, options.secrets ?? []);
      await writeFileAtomic(join(staging, name), written);
      return written;
    },
    async commit() {
      const finalDir = attemptDir(outDir, incidentId, attempt);
      const replaced = asideDir(outDir, incidentId, attempt, "replaced", tag);
      await rename(finalDir, replaced).catch((failed: NodeJS.ErrnoException) => {
        if (failed.code !== "ENOENT") throw failed;
      });
      await rename(staging, finalDir);
      await rm(replaced, { recursive: true, force: true });
      return finalDir;
    },
  };
}

/**
 * Removes what a killed run left in a results folder: the staging and moved-aside folders of
 * {@link stageAttemptFolder} under the given incidents. Call it only while holding the
 * results folder's lock (see `runLockPath`), so no live run's staging folder is removed.
 *
 * @example
 * ```ts
 * await removeAttemptLeftovers("results/baseline", ["zklite-142", "leasekv-77"]);
 * ```
 */
export async function removeAttemptLeftovers(
  outDir: string,
  incidentIds: readonly string[],
): Promise<void> {
  for (const id of incidentIds) {
    let names: string[];
    try {
      names = await readdir(join(outDir, id));
    } catch {
      continue;
    }
    for (const name of names.filter(isAsideName))
      await rm(join(outDir, id, name), { recursive: true, force: true });
  }
}
