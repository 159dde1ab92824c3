import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { MAX_DIAGNOSIS_NAME_CHARS } from "./diagnosis.js";
import { parseDiagnosis } from "./parsers.js";

const jsonSchema = new Ajv2020({ strict: false }).compile(
  JSON.parse(
    readFileSync(join(import.meta.dirname, "..", "json-schema", "diagnosis.schema.json"), "utf8"),
  ),
);

function diagnosisWith(block: Record<string, unknown>) {
  return { format: "distdebug.diagnosis/1", incidentId: "x-1", blocks: [block] };
}

/** Valid by zod (parseDiagnosis) and by the committed JSON Schema: both answers. */
function verdicts(block: Record<string, unknown>): { zod: boolean; jsonSchema: boolean } {
  const document = diagnosisWith(block);
  let zod = true;
  try {
    parseDiagnosis(document);
  } catch {
    zod = false;
  }
  return { zod, jsonSchema: jsonSchema(document) };
}

describe("the 1,000-character cap of a block's path and symbol", () => {
  it("is 1,000", () => {
    expect(MAX_DIAGNOSIS_NAME_CHARS).toBe(1000);
  });

  it("accepts 1,000 characters in zod and JSON Schema alike (code points: 1,000 emoji too)", () => {
    for (const name of ["x".repeat(1000), "😀".repeat(1000)]) {
      expect(verdicts({ symbol: name })).toEqual({ zod: true, jsonSchema: true });
      expect(verdicts({ path: name })).toEqual({ zod: true, jsonSchema: true });
    }
  });

  it("refuses 1,001 characters in zod and JSON Schema alike, naming the field", () => {
    for (const name of ["x".repeat(1001), "😀".repeat(1001)]) {
      expect(verdicts({ symbol: name })).toEqual({ zod: false, jsonSchema: false });
      expect(verdicts({ path: name, startLine: 1 })).toEqual({ zod: false, jsonSchema: false });
    }
    expect(() => parseDiagnosis(diagnosisWith({ symbol: "x".repeat(200_000) }))).toThrow(
      /blocks\[0\]\.symbol.*at most 1000 characters/,
    );
  });
});
