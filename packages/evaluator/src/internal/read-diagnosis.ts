import {
  Diagnosis,
  DiagnosisBlock,
  DistDebugError,
  describeZodIssues,
  parseDiagnosis,
  parseJsonInput,
} from "@distdebug/schema";

/** One listed block: valid, or the reason it is not. */
export type ListedBlock =
  | { ok: true; block: DiagnosisBlock }
  | { ok: false; reason: string; raw: unknown };

/** A diagnosis read for scoring. */
export type ReadDiagnosis =
  | { valid: true; incidentId: string; blocks: ListedBlock[] }
  | { valid: false; reason: string };

/**
 * Validates a diagnosis as an agent wrote it. A valid envelope (format, incidentId, blocks
 * list) with some bad blocks keeps the good ones: each bad block becomes an invalid span.
 */
export function readDiagnosis(input: unknown): ReadDiagnosis {
  let value = input;
  if (typeof input === "string" || input instanceof Uint8Array) {
    try {
      value = parseJsonInput(input, { source: "diagnosis" });
    } catch (error) {
      return {
        valid: false,
        reason: DistDebugError.isInstance(error) ? error.message : String(error),
      };
    }
  }
  const whole = Diagnosis.safeParse(value);
  if (whole.success)
    return {
      valid: true,
      incidentId: whole.data.incidentId,
      blocks: whole.data.blocks.map((block) => ({ ok: true, block })),
    };
  const envelope = Diagnosis.omit({ blocks: true }).safeParse(value);
  const blocks = (value as { blocks?: unknown } | null)?.blocks;
  if (envelope.success && Array.isArray(blocks)) {
    return {
      valid: true,
      incidentId: envelope.data.incidentId,
      blocks: blocks.map((raw): ListedBlock => {
        const block = DiagnosisBlock.safeParse(raw);
        return block.success
          ? { ok: true, block: block.data }
          : { ok: false, reason: describeZodIssues(block.error, raw).text.trim(), raw };
      }),
    };
  }
  try {
    parseDiagnosis(value, { source: "diagnosis" });
    return { valid: false, reason: "not a valid diagnosis" };
  } catch (error) {
    return {
      valid: false,
      reason: DistDebugError.isInstance(error) ? error.message : String(error),
    };
  }
}
