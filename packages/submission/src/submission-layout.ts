import { ATTEMPT_FILE_LIMITS, parseAttemptPath, RESULTS_FILES } from "@distdebug/results";
import { DEFAULT_MAX_FILE_BYTES } from "@distdebug/schema";
import type { ArchiveLayout } from "./internal/tar-reader.js";
import { MANIFEST_FILE } from "./package-results.js";

/** An incident id as the dataset schema allows it. */
const INCIDENT_ID = /^[a-z0-9][a-z0-9._-]*$/;

const TOP_FILES = new Set<string>([MANIFEST_FILE, RESULTS_FILES.run, RESULTS_FILES.summary]);

/**
 * The files a submission archive may hold and their size limits: `manifest.json`, `run.json`,
 * `summary.json` (32 MiB each) and `<incident>/attempt-<k>/` with `diagnosis.json` (1 MiB),
 * `trajectory.json` (32 MiB), `attempt.json` and `diagnosis_scores.json` (32 MiB); the same
 * limits the runner and `score` read them with. Anything else is refused by `verify`.
 *
 * @example
 * ```ts
 * const files = await readTarGzFile("submission.tar.gz", { layout: SUBMISSION_LAYOUT });
 * ```
 */
export const SUBMISSION_LAYOUT: ArchiveLayout = {
  fileLimit(path) {
    if (TOP_FILES.has(path)) return DEFAULT_MAX_FILE_BYTES;
    const located = parseAttemptPath(path);
    if (!located || !INCIDENT_ID.test(located.incidentId)) return undefined;
    return ATTEMPT_FILE_LIMITS[located.file];
  },
  isFolder(path) {
    const [incidentId, folder, ...rest] = path.split("/");
    if (!incidentId || !INCIDENT_ID.test(incidentId) || rest.length > 0) return false;
    return folder === undefined || parseAttemptPath(`${incidentId}/${folder}/file`) !== undefined;
  },
};
