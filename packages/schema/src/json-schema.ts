import { z } from "zod";
import { DistDebugError } from "./errors.js";
import { type FormatKind, formats } from "./formats.js";
import {
  applyJsonSchemaRule,
  hasRefinement,
  type JsonSchemaFragment,
  jsonSchemaRuleOf,
} from "./internal/json-rule.js";

/** The `format` values of draft 2020-12 that zod emits and validators know (annotations). */
const standardFormats = new Set(["date-time", "date", "time", "duration", "email", "uri", "uuid"]);

/** Keywords whose values are data, not schemas: never rewritten. */
const valueKeywords = new Set(["const", "default", "enum", "examples"]);

/**
 * The JSON Schema (draft 2020-12) of one file kind, generated from its zod schema. It
 * describes the file as written (inputs: fields with defaults are optional). Every refinement
 * of the zod schema is in it (see `withJsonSchemaRule`), so a JSON Schema validator accepts
 * what the zod parser accepts; where draft 2020-12 cannot say a rule, the schema's
 * `description` names it.
 */
export function jsonSchemaOf(kind: FormatKind): Record<string, unknown> {
  const schema = z.toJSONSchema(formats[kind].schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema, path }) =>
      expressRefinements(zodSchema, jsonSchema, kind, path),
  }) as Record<string, unknown>;
  portableKeywords(schema);
  return {
    $schema: schema.$schema,
    $id: `https://distdebug.dev/schema/${kind}.schema.json`,
    title: `DistDebug ${formats[kind].title} (${formats[kind].fileName})`,
    ...schema,
  };
}

function expressRefinements(
  zodSchema: z.core.$ZodType,
  jsonSchema: JsonSchemaFragment,
  kind: FormatKind,
  path: readonly (string | number)[],
): void {
  const rule = jsonSchemaRuleOf(zodSchema);
  if (rule) applyJsonSchemaRule(jsonSchema, rule);
  else if (hasRefinement(zodSchema))
    throw new DistDebugError({
      code: "INTERNAL",
      message: `the ${kind} schema has a refinement at ${path.join("/") || "its root"} without a JSON Schema form: register one with withJsonSchemaRule next to the refinement`,
    });
}

/**
 * Keeps the keywords meaning the same to every validator: drops zod's private `format` names
 * (`starts_with`: the `pattern` beside it carries the rule), and writes patterns so Python's
 * `re` reads them as ECMA-262 does (`\d` is ASCII only, `$` is the end, not before a final
 * newline).
 */
function portableKeywords(node: unknown): void {
  if (Array.isArray(node)) node.forEach(portableKeywords);
  if (node === null || typeof node !== "object" || Array.isArray(node)) return;
  const schema = node as JsonSchemaFragment;
  if (typeof schema.format === "string" && !standardFormats.has(schema.format))
    delete schema.format;
  if (typeof schema.pattern === "string") schema.pattern = portablePattern(schema.pattern);
  for (const [key, value] of Object.entries(schema))
    if (!valueKeywords.has(key)) portableKeywords(value);
}

/**
 * `pattern` as both ECMA-262 and Python's `re` read it: `\d` becomes `[0-9]` (inside
 * brackets, `0-9`) and a final `$` becomes `$(?!\n)`.
 */
function portablePattern(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === "\\") {
      const next = pattern[++index] ?? "";
      out += next === "d" ? (inClass ? "0-9" : "[0-9]") : `\\${next}`;
    } else {
      if (char === "[") inClass = true;
      else if (char === "]") inClass = false;
      out += char;
    }
  }
  return out.endsWith("$") && !out.endsWith("\\$") ? `${out}(?!\\n)` : out;
}

/** Every JSON Schema file by name (`diagnosis.schema.json`), as the exact text committed. */
export function jsonSchemaFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const kind of Object.keys(formats).sort() as FormatKind[]) {
    files[`${kind}.schema.json`] = `${JSON.stringify(jsonSchemaOf(kind), null, 2)}\n`;
  }
  return files;
}
