import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { DistDebugError } from "./errors.js";
import { type FormatKind, formats } from "./formats.js";
import type { InvalidFileData } from "./parse.js";
import { parseDiagnosis, parsersByKind } from "./parsers.js";
import { exampleDocuments, isInOpenRecord, type Json } from "./testing/examples.js";

/**
 * Strict inputs (issue 30): every format rejects a key it does not know, with the file, the
 * JSON path and a did-you-mean. Only the open places named in docs/guide/file-formats.md take
 * any key: records such as `model.parameters`, and the trajectory's `extra`.
 */

function rejection(run: () => unknown): DistDebugError<InvalidFileData> {
  try {
    run();
  } catch (error) {
    if (DistDebugError.isInstance(error)) return error as DistDebugError<InvalidFileData>;
    throw error;
  }
  return expect.unreachable("the input was accepted");
}

describe("strict inputs", () => {
  it("reports a diagnosis block's start_line at its path, with the key it means", () => {
    const error = rejection(() =>
      parseDiagnosis(
        {
          format: "distdebug.diagnosis/1",
          incidentId: "zookeeper-2845",
          blocks: [{ path: "src/A.java", start_line: 129, end_line: 135 }],
        },
        { source: "out/diagnosis.json" },
      ),
    );
    expect(error.code).toBe("INVALID_FILE");
    expect(error.data?.issues).toEqual([
      {
        path: "$.blocks[0].start_line",
        expected: 'a known key (did you mean "startLine"?)',
        found: 'the unknown key "start_line"',
      },
      {
        path: "$.blocks[0].end_line",
        expected: 'a known key (did you mean "endLine"?)',
        found: 'the unknown key "end_line"',
      },
    ]);
    expect(error.message).toMatch(/^out\/diagnosis\.json: not a valid diagnosis/);
  });

  it("names the keys an object knows when no key is close", () => {
    const error = rejection(() =>
      parseDiagnosis({
        format: "distdebug.diagnosis/1",
        incidentId: "x",
        blocks: [{ path: "a.go", confidence: 0.9 }],
      }),
    );
    expect(error.data?.issues).toEqual([
      {
        path: "$.blocks[0].confidence",
        expected: 'one of the keys "path", "startLine", "endLine", "symbol", "reason"',
        found: 'the unknown key "confidence"',
      },
    ]);
  });

  it.each(Object.keys(formats) as FormatKind[])(
    "%s: rejects an unknown key at the top level and in every nested object of its examples",
    (kind) => {
      for (const { file, document } of exampleDocuments(kind)) {
        for (const path of objectPaths(document)) {
          const copy = structuredClone(document);
          const target = at(copy, path) as Record<string, Json>;
          target.unknownKey = 1;
          const error = rejection(() => parsersByKind[kind](copy, { source: file }));
          expect(
            error.data?.issues.map((issue) => issue.path),
            `${file} at ${path.join(".")}`,
          ).toContain(
            `$${path.map((key) => (typeof key === "number" ? `[${key}]` : `.${key}`)).join("")}.unknownKey`,
          );
        }
      }
    },
  );

  it("leaves only the documented places open: records, and the trajectory's extra", () => {
    const open: string[] = [];
    for (const kind of Object.keys(formats) as FormatKind[])
      visitObjects(formats[kind].schema, kind, (path, def) => {
        if (def.catchall === undefined || defOf(def.catchall).type !== "never") open.push(path);
      });
    expect(open).toEqual([]);
  });
});

type Path = (string | number)[];

/** The paths of every object (not array) of a document, the root included. */
function objectPaths(document: Json, path: Path = []): Path[] {
  if (document === null || typeof document !== "object") return [];
  if (Array.isArray(document))
    return document.flatMap((item, index) => objectPaths(item, [...path, index]));
  if (isInOpenRecord(path)) return [];
  return [
    path,
    ...Object.entries(document).flatMap(([key, child]) => objectPaths(child, [...path, key])),
  ];
}

function at(document: Json, path: Path): Json {
  let current = document;
  for (const key of path) current = (current as Record<string | number, Json>)[key]!;
  return current;
}

type Def = z.core.$ZodTypeDef & Record<string, unknown>;
const defOf = (schema: unknown): Def => (schema as z.core.$ZodType)._zod.def as Def;

/** Calls `found` with every object schema reachable from `schema`. */
function visitObjects(schema: unknown, path: string, found: (path: string, def: Def) => void) {
  const seen = new Set<unknown>();
  const visit = (node: unknown, where: string): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const def = defOf(node);
    if (def.type === "object") {
      found(where, def);
      for (const [key, child] of Object.entries(def.shape as object))
        visit(child, `${where}.${key}`);
      return;
    }
    for (const key of ["innerType", "in", "out", "element", "valueType", "left", "right"])
      if (def[key]) visit(def[key], where);
    if (Array.isArray(def.options)) for (const option of def.options) visit(option, where);
  };
  visit(schema, path);
}
