import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAnyFile } from "./detect.js";
import { DEFAULT_MAX_DIAGNOSIS_BLOCKS } from "./diagnosis.js";
import { DistDebugError } from "./errors.js";
import { formatOf, type formats } from "./formats.js";
import { jsonSchemaOf } from "./json-schema.js";
import type { InvalidFileData } from "./parse.js";
import { serialize } from "./parse.js";
import { parseDiagnosis, parseGold, parsersByKind } from "./parsers.js";

const allParsers = parsersByKind;

function invalid(fn: () => unknown): DistDebugError<InvalidFileData> {
  try {
    fn();
  } catch (error) {
    expect(DistDebugError.isInstance(error)).toBe(true);
    return error as DistDebugError<InvalidFileData>;
  }
  throw new Error("expected a DistDebugError");
}

describe("parseDiagnosis", () => {
  it("accepts lines, path-only and symbol-only blocks", () => {
    const value = parseDiagnosis(
      JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "zookeeper-2845",
        blocks: [
          { path: "src/A.java", startLine: 10, endLine: 14, reason: "applies the log" },
          { path: "src/B.java" },
          { symbol: "ZKDatabase.loadDataBase" },
          { path: "src/C.java", startLine: 7 },
        ],
      }),
      { source: "diagnosis.json" },
    );
    expect(value.blocks).toHaveLength(4);
    expect(value.blocks[2]?.symbol).toBe("ZKDatabase.loadDataBase");
  });

  it("names the file and every bad JSON path with expected and found", () => {
    const error = invalid(() =>
      parseDiagnosis(
        {
          format: "distdebug.diagnosis/1",
          blocks: [{ path: "a.go", startLine: 0 }, { endLine: 3 }, "x"],
        },
        { source: "out/diagnosis.json" },
      ),
    );
    expect(error.code).toBe("INVALID_FILE");
    expect(error.message).toMatch(/^out\/diagnosis\.json: not a valid diagnosis/);
    const paths = error.data?.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "$.incidentId",
        "$.blocks[0].startLine",
        "$.blocks[1].path",
        "$.blocks[1].startLine",
        "$.blocks[2]",
      ]),
    );
    expect(error.message).toContain(
      "$.blocks[0].startLine: expected a number >= 1, found the number 0",
    );
    expect(error.message).toContain(
      "$.incidentId: expected a value of type string, found nothing (the field is missing)",
    );
  });

  it("says so when the file is another kind or a newer major", () => {
    const other = invalid(() =>
      parseDiagnosis({ format: "distdebug.gold/1" }, { source: "g.json" }),
    );
    expect(other.message).toBe(
      "g.json: expected a diagnosis (distdebug.diagnosis/1), but this is a gold labels file (distdebug.gold/1)",
    );
    const newer = invalid(() =>
      parseDiagnosis({ format: "distdebug.diagnosis/7", blocks: [] }, { source: "d.json" }),
    );
    expect(newer.data?.reason).toBe("newer-version");
    expect(newer.message).toContain("newer DistDebug");
  });

  it("reports JSON syntax errors and empty input in one line", () => {
    const syntax = invalid(() => parseDiagnosis('{"format": ', { source: "d.json" }));
    expect(syntax.data?.reason).toBe("not-json");
    expect(syntax.message.split("\n")).toHaveLength(1);
    const empty = invalid(() => parseDiagnosis("  \n", { source: "d.json" }));
    expect(empty.message).toBe("d.json: the file is empty; expected a JSON document");
  });

  it("allows at most maxDiagnosisBlocks blocks (200 unless raised), and the JSON Schema says so", () => {
    const blocks = (count: number) => ({
      format: "distdebug.diagnosis/1",
      incidentId: "x",
      blocks: Array.from({ length: count }, () => ({ symbol: "run" })),
    });
    expect(parseDiagnosis(blocks(200)).blocks).toHaveLength(200);
    const over = invalid(() => parseDiagnosis(blocks(201), { source: "d.json" }));
    expect(over.message).toBe(
      "d.json: not a valid diagnosis (distdebug.diagnosis/1); 1 problem:\n  - $.blocks: expected an array with <= 200 items, found an array of 201 items",
    );
    // The same rule through parseAnyFile (validate) and with a raised limit.
    expect(() => parseAnyFile(blocks(201))).toThrow(/<= 200 items/);
    expect(parseAnyFile(blocks(201), { maxDiagnosisBlocks: 201 }).kind).toBe("diagnosis");
    expect(parseDiagnosis(blocks(10_000), { maxDiagnosisBlocks: 10_000 }).blocks).toHaveLength(
      10_000,
    );
    expect(() => parseDiagnosis(blocks(3), { maxDiagnosisBlocks: 2 })).toThrow(/<= 2 items/);
    expect(() => parseDiagnosis(blocks(1), { maxDiagnosisBlocks: 0 })).toThrow(
      /maxDiagnosisBlocks/,
    );
    const schema = jsonSchemaOf("diagnosis") as {
      properties: { blocks: { maxItems: number } };
    };
    expect(schema.properties.blocks.maxItems).toBe(DEFAULT_MAX_DIAGNOSIS_BLOCKS);
  });

  it("strips a UTF-8 byte order mark", () => {
    const text = `\ufeff${JSON.stringify({ format: "distdebug.diagnosis/1", incidentId: "x", blocks: [] })}`;
    expect(parseDiagnosis(new TextEncoder().encode(text)).incidentId).toBe("x");
  });
});

describe("parseGold", () => {
  it("rejects a reversed block with its path", () => {
    const error = invalid(() =>
      parseGold({
        format: "distdebug.gold/1",
        incidentId: "x",
        blocks: [{ path: "a.c", startLine: 9, endLine: 3 }],
        fix: { commit: "a".repeat(40) },
      }),
    );
    expect(error.data?.issues[0]?.path).toBe("$.blocks[0].endLine");
  });
});

describe("every parser", () => {
  it("returns a value or throws DistDebugError for arbitrary JSON (property)", () => {
    for (const [kind, parse] of Object.entries(allParsers)) {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.jsonValue(),
            fc
              .record(
                { format: fc.constant(formatOf(kind as keyof typeof formats)) },
                { requiredKeys: [] },
              )
              .chain((base) =>
                fc.dictionary(fc.string(), fc.jsonValue()).map((rest) => ({ ...rest, ...base })),
              ),
          ),
          (value) => {
            try {
              parse(value);
            } catch (error) {
              if (!DistDebugError.isInstance(error)) throw error;
            }
          },
        ),
        { numRuns: 150 },
      );
    }
  });

  it("round-trips parse -> serialize -> parse stably (property)", () => {
    const block = fc.record(
      {
        path: fc.string({ minLength: 1, maxLength: 20 }),
        startLine: fc.integer({ min: 1, max: 5000 }),
        endLine: fc.integer({ min: 1, max: 5000 }),
        symbol: fc.string({ minLength: 1, maxLength: 20 }),
        reason: fc.string(),
      },
      { requiredKeys: ["path"] },
    );
    const diagnosis = fc.record({
      format: fc.constant("distdebug.diagnosis/1"),
      incidentId: fc.string({ minLength: 1 }),
      blocks: fc.array(block, { maxLength: 6 }),
      summary: fc.option(fc.string(), { nil: undefined }),
      extra: fc.jsonValue(),
    });
    fc.assert(
      fc.property(diagnosis, (value) => {
        let first: unknown;
        try {
          first = parseDiagnosis(value);
        } catch (error) {
          if (DistDebugError.isInstance(error)) return;
          throw error;
        }
        const text = serialize(first);
        expect(serialize(parseDiagnosis(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
