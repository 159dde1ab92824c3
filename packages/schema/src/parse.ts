import type { z } from "zod";
import { errorMessage } from "./error-message.js";
import { DistDebugError } from "./errors.js";
import { type FormatKind, formatOf, formats, isFormatKind } from "./formats.js";
import { describeValue } from "./internal/describe.js";
import { type FileIssue, formatIssues, toFileIssues } from "./internal/issues.js";
import { jsonErrorLocation, toText } from "./internal/json-text.js";
import { checkJsonText, checkJsonValue, type JsonLimits } from "./json-limits.js";

/** Options of every `parse<Kind>` function. */
export interface ParseOptions {
  /** Where the input came from (a file path), used in error messages. Default `"input"`. */
  source?: string;
  /** Bounds on the JSON's bytes, depth and values. Default `DEFAULT_JSON_LIMITS`. */
  limits?: Partial<JsonLimits>;
}

/** Structured data of an `INVALID_FILE` error. */
export interface InvalidFileData {
  source: string;
  /** The kind the caller asked for, if any. */
  kind?: string;
  reason:
    | "not-json"
    | "empty"
    | "too-complex"
    | "wrong-kind"
    | "newer-version"
    | "unknown-format"
    | "schema";
  issues: FileIssue[];
}

/** Throws an `INVALID_FILE` error; `detail` follows the file name. */
export function invalidFile(
  source: string,
  detail: string,
  data: Omit<InvalidFileData, "source">,
  cause?: unknown,
): never {
  throw new DistDebugError<InvalidFileData>({
    code: "INVALID_FILE",
    message: `${source}: ${detail}`,
    data: { source, ...data },
    cause,
  });
}

/**
 * Reads JSON text (a string or bytes) or passes an already parsed value through, bounded by
 * `options.limits` either way (depth 100, 1,000,000 values, 32 MiB by default).
 * Throws `INVALID_FILE` for empty input, text that is not JSON, or JSON over the limits
 * (`data.reason` `too-complex`, one line).
 */
export function parseJsonInput(input: unknown, options: ParseOptions = {}): unknown {
  const source = options.source ?? "input";
  const bounds = { source, ...(options.limits ? { limits: options.limits } : {}) };
  if (typeof input !== "string" && !(input instanceof Uint8Array)) {
    checkJsonValue(input, bounds);
    return input;
  }
  const text = toText(input);
  checkJsonText(text, bounds);
  if (text.trim() === "")
    invalidFile(source, "the file is empty; expected a JSON document", {
      reason: "empty",
      issues: [],
    });
  try {
    return JSON.parse(text);
  } catch (error) {
    const where = jsonErrorLocation(text, error);
    invalidFile(
      source,
      `not valid JSON${where ? ` (${where})` : ""}: ${errorMessage(error)}`,
      { reason: "not-json", issues: [] },
      error,
    );
  }
}

/** The `format` tag parts of a value, if it has a string `format` of our shape. */
export function readFormatTag(
  value: unknown,
): { kind: string; major: number; tag: string } | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const tag = (value as { format?: unknown }).format;
  if (typeof tag !== "string") return undefined;
  const match = /^distdebug\.([a-z_]+)\/(\d+)$/.exec(tag);
  if (!match) return undefined;
  return { kind: match[1]!, major: Number(match[2]), tag };
}

/** Checks the `format` tag against the wanted kind before the schema runs, for clear messages. */
function checkFormatTag(kind: FormatKind, value: unknown, source: string): void {
  const found = readFormatTag(value);
  const wanted = formatOf(kind);
  const title = formats[kind].title;
  if (!found) return; // the schema reports a missing or malformed tag with its JSON path
  if (found.kind === kind && found.major > formats[kind].major) {
    invalidFile(
      source,
      `${found.tag} was written by a newer DistDebug; this version reads ${wanted}. Upgrade the distdebug packages to read it.`,
      {
        kind,
        reason: "newer-version",
        issues: [
          { path: "$.format", expected: JSON.stringify(wanted), found: describeValue(found.tag) },
        ],
      },
    );
  }
  if (found.kind !== kind) {
    const other = isFormatKind(found.kind)
      ? `a ${formats[found.kind].title} file`
      : "an unknown kind of file";
    invalidFile(source, `expected a ${title} (${wanted}), but this is ${other} (${found.tag})`, {
      kind,
      reason: "wrong-kind",
      issues: [
        { path: "$.format", expected: JSON.stringify(wanted), found: describeValue(found.tag) },
      ],
    });
  }
}

/**
 * Validates a value against a schema and throws `INVALID_FILE` listing every problem.
 * @param kind - the file kind, used in the message.
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  kind: FormatKind,
  value: unknown,
  source: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toFileIssues(result.error, value, schema);
  invalidFile(
    source,
    `not a valid ${formats[kind].title} (${formatOf(kind)}); ${issues.length} problem${issues.length === 1 ? "" : "s"}:\n${formatIssues(issues)}`,
    { kind, reason: "schema", issues },
  );
}

/**
 * Builds the `parse<Kind>` function of one kind: JSON text, bytes or a value in; the typed
 * value out, or a `DistDebugError` with code `INVALID_FILE` naming every bad JSON path.
 */
export function createParser<K extends FormatKind>(
  kind: K,
  /** Another schema of the same output type (a diagnosis with another block limit). */
  schema: z.ZodType<z.output<(typeof formats)[K]["schema"]>> = formats[kind]
    .schema as unknown as z.ZodType<z.output<(typeof formats)[K]["schema"]>>,
) {
  return (input: unknown, options: ParseOptions = {}): z.output<(typeof formats)[K]["schema"]> => {
    const source = options.source ?? "input";
    const value = parseJsonInput(input, options);
    checkFormatTag(kind, value, source);
    return validateWith(schema, kind, value, source);
  };
}

/** Serializes any DistDebug value the one way files are written: 2-space JSON and a newline. */
export function serialize(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
