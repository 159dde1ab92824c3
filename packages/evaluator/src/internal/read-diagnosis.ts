import { type Diagnosis, DistDebugError, parseDiagnosis } from "@distdebug/schema";

/** A diagnosis read for scoring: valid by the one rule of `parseDiagnosis`, or why not. */
export type ReadDiagnosis =
  | { valid: true; diagnosis: Diagnosis }
  | { valid: false; reason: string };

/**
 * Validates a diagnosis as an agent wrote it (a value, JSON text or bytes) exactly as
 * `validate`, `run` and `score` do: the schema's rules and at most `maxDiagnosisBlocks` blocks.
 * One bad block makes the whole diagnosis invalid.
 */
export function readDiagnosis(input: unknown, maxDiagnosisBlocks: number): ReadDiagnosis {
  try {
    return {
      valid: true,
      diagnosis: parseDiagnosis(input, { source: "diagnosis", maxDiagnosisBlocks }),
    };
  } catch (error) {
    if (!DistDebugError.isInstance(error)) throw error;
    return { valid: false, reason: error.message };
  }
}
