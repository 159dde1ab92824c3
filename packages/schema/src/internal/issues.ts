import type { z } from "zod";
import { closest } from "../suggest.js";
import { describeValue, jsonPath, valueAt } from "./describe.js";
import { knownKeysAt } from "./known-keys.js";

/** One problem found in a file: where, what was expected, what was found. */
export interface FileIssue {
  /** JSON path of the offending value, for example `$.blocks[0].startLine`. */
  path: string;
  /** What the format wants there. */
  expected: string;
  /** What the file has there. */
  found: string;
}

function sizeBound(
  origin: string,
  bound: number | bigint,
  inclusive: boolean,
  low: boolean,
): string {
  const op = low ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
  if (origin === "string") return `a string of length ${op} ${bound}`;
  if (origin === "array" || origin === "set") return `an array with ${op} ${bound} items`;
  return `a number ${op} ${bound}`;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "int" ? "an integer" : `a value of type ${issue.expected}`;
    case "too_small":
      return sizeBound(issue.origin, issue.minimum, issue.inclusive ?? true, true);
    case "too_big":
      return sizeBound(issue.origin, issue.maximum, issue.inclusive ?? true, false);
    case "invalid_value":
      return issue.values.length === 1
        ? JSON.stringify(issue.values[0])
        : `one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "invalid_format":
      if (issue.format === "datetime")
        return "an ISO 8601 date and time with an offset, such as 2026-12-02T18:19:00Z";
      return issue.pattern ? `a string matching ${issue.pattern}` : `a ${issue.format} string`;
    case "invalid_union":
      return issue.message && !issue.message.startsWith("Invalid input")
        ? issue.message
        : "one of the allowed shapes";
    default:
      return issue.message;
  }
}

/**
 * One issue per unknown key, at the key's own path, naming the keys the object knows (read
 * from `schema` when given) and the closest one: `start_line` finds `startLine`.
 */
function unknownKeyIssues(
  issue: z.core.$ZodIssueUnrecognizedKeys,
  input: unknown,
  schema: z.core.$ZodType | undefined,
): FileIssue[] {
  const known = schema ? knownKeysAt(schema, issue.path, input) : undefined;
  return issue.keys.map((key) => {
    const match = known && closest(key, known);
    const expected =
      match !== undefined
        ? `a known key (did you mean ${JSON.stringify(match)}?)`
        : known
          ? `one of the keys ${known.map((name) => JSON.stringify(name)).join(", ")}`
          : "no such key";
    return {
      path: jsonPath([...issue.path, key]),
      expected,
      found: `the unknown key ${JSON.stringify(key)}`,
    };
  });
}

/**
 * Turns zod's issues into {@link FileIssue}s with values read from the original input. With
 * the `schema` that failed, an unknown key gets a did-you-mean from the keys it knows.
 */
export function toFileIssues(
  error: z.ZodError,
  input: unknown,
  schema?: z.core.$ZodType,
): FileIssue[] {
  const out: FileIssue[] = [];
  const visit = (issue: z.core.$ZodIssue) => {
    // A union whose every branch failed at the same deeper place is clearer as those issues.
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const best = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
      if (best.length > 0 && best.every((inner) => inner.path.length > 0)) {
        for (const inner of best) visit({ ...inner, path: [...issue.path, ...inner.path] });
        return;
      }
    }
    if (issue.code === "unrecognized_keys") {
      out.push(...unknownKeyIssues(issue, input, schema));
      return;
    }
    const found = describeValue(valueAt(input, issue.path));
    out.push({ path: jsonPath(issue.path), expected: expectedOf(issue), found });
  };
  for (const issue of error.issues) visit(issue);
  return out;
}

/**
 * Renders issues as indented lines: `  - $.a.b: expected X, found Y`.
 *
 * @example
 * ```ts
 * formatIssues([{ path: "$.run.attempt", expected: "a known key", found: "the unknown key" }]);
 * ```
 */
export function formatIssues(issues: readonly FileIssue[]): string {
  return issues
    .map((issue) => `  - ${issue.path}: expected ${issue.expected}, found ${issue.found}`)
    .join("\n");
}

/**
 * The one zod-issue formatter of the SDK: the problems of a failed `safeParse` as
 * {@link FileIssue}s (values read from `input`) and as indented lines for a message.
 *
 * @example
 * ```ts
 * const result = SandboxPolicy.safeParse(input);
 * if (!result.success) console.error(describeZodIssues(result.error, input).text);
 * ```
 */
export function describeZodIssues(
  error: z.ZodError,
  input: unknown,
  /** The schema that failed, for a did-you-mean on unknown keys. */
  schema?: z.core.$ZodType,
): { issues: FileIssue[]; text: string } {
  const issues = toFileIssues(error, input, schema);
  return { issues, text: formatIssues(issues) };
}
