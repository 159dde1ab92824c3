/**
 * A check your agent's test suite can call on the `diagnosis.json` it wrote: the file must be
 * a valid `distdebug.diagnosis/1` for the incident, and name at least one block. Returns the
 * parsed diagnosis, or throws a `DistDebugError` whose message names the file and every bad
 * JSON path.
 */
import { readFile } from "node:fs/promises";
import { type Diagnosis, DistDebugError, parseDiagnosis } from "@distdebug/schema";

export async function checkDiagnosisFile(path: string, incidentId: string): Promise<Diagnosis> {
  const diagnosis = parseDiagnosis(await readFile(path, "utf8"), { source: path });
  if (diagnosis.incidentId !== incidentId)
    throw new DistDebugError({
      code: "INVALID_FILE",
      message: `${path}: $.incidentId: expected ${JSON.stringify(incidentId)}, found ${JSON.stringify(diagnosis.incidentId)}`,
    });
  if (diagnosis.blocks.length === 0)
    throw new DistDebugError({
      code: "INVALID_FILE",
      message: `${path}: $.blocks: names no code; an empty diagnosis scores 0`,
    });
  return diagnosis;
}
