import { join } from "node:path";
import { ATTEMPT_FILES } from "@distdebug/results";
import {
  MAX_TRAJECTORY_BYTES,
  parseTrajectory,
  readFileChecked,
  type Trajectory,
} from "@distdebug/schema";

/**
 * The trajectory of an attempt folder as written (what `run` and `score` both score the search
 * path from, so they agree); null when it is missing, over the size limit or invalid.
 */
export async function readAttemptTrajectory(dir: string): Promise<Trajectory | null> {
  try {
    const path = join(dir, ATTEMPT_FILES.trajectory);
    const bytes = await readFileChecked(path, { maxBytes: MAX_TRAJECTORY_BYTES });
    return parseTrajectory(bytes, { source: path });
  } catch {
    return null;
  }
}
