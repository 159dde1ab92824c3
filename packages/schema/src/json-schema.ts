import { z } from "zod";
import { type FormatKind, formats } from "./formats.js";

/**
 * The JSON Schema (draft 2020-12) of one file kind, generated from its zod schema. It
 * describes the file as written (inputs: fields with defaults are optional).
 */
export function jsonSchemaOf(kind: FormatKind): Record<string, unknown> {
  const schema = z.toJSONSchema(formats[kind].schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    $id: `https://distdebug.dev/schema/${kind}.schema.json`,
    title: `DistDebug ${formats[kind].title} (${formats[kind].fileName})`,
    ...schema,
  };
}

/** Every JSON Schema file by name (`diagnosis.schema.json`), as the exact text committed. */
export function jsonSchemaFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const kind of Object.keys(formats).sort() as FormatKind[]) {
    files[`${kind}.schema.json`] = `${JSON.stringify(jsonSchemaOf(kind), null, 2)}\n`;
  }
  return files;
}
