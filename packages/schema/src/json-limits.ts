import { DistDebugError } from "./errors.js";
import { DEFAULT_MAX_FILE_BYTES } from "./files.js";

/**
 * How much JSON a parse accepts. Bytes alone do not bound the work: 200,000 nested `[` fit in
 * 400 KB and overflow the stack of every recursive walker (`JSON.stringify` included), and
 * 32 MiB of `{},` is 10 million objects.
 */
export interface JsonLimits {
  /** Most nested arrays and objects. Default {@link DEFAULT_JSON_LIMITS}`.maxDepth` (100). */
  maxDepth: number;
  /**
   * Most values, counted as arrays, objects and separators (`,`). Default
   * {@link DEFAULT_JSON_LIMITS}`.maxNodes` (1,000,000).
   */
  maxNodes: number;
  /** Most UTF-8 bytes of text. Default {@link DEFAULT_MAX_FILE_BYTES} (32 MiB). */
  maxBytes: number;
}

/**
 * The limits every `parse<Kind>` function applies: depth 100, 1,000,000 values, 32 MiB. A
 * trajectory of real agents nests about 12 deep and holds a few hundred thousand values.
 */
export const DEFAULT_JSON_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxDepth: 100,
  maxNodes: 1_000_000,
  maxBytes: DEFAULT_MAX_FILE_BYTES,
});

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function tooComplex(source: string, detail: string, limits: JsonLimits): never {
  throw new DistDebugError({
    code: "INVALID_FILE",
    message: `${source}: ${detail}; refused (a DistDebug file nests at most ${limits.maxDepth} levels and holds at most ${limits.maxNodes.toLocaleString("en-US")} values)`,
    data: { source, reason: "too-complex", issues: [] },
  });
}

/**
 * Checks JSON text against `limits` in one pass, without parsing it (strings are skipped, so
 * brackets inside them do not count). Text that is not JSON passes; `JSON.parse` reports it.
 *
 * @throws DistDebugError `INVALID_FILE` (data.reason `too-complex`) naming `source`.
 * @example
 * ```ts
 * checkJsonText("[[[]]]", { source: "trajectory.json" }); // fine
 * ```
 */
export function checkJsonText(
  input: string | Uint8Array,
  options: { source?: string; limits?: Partial<JsonLimits> } = {},
): void {
  const limits = { ...DEFAULT_JSON_LIMITS, ...options.limits };
  const source = options.source ?? "input";
  const bytes = typeof input === "string" ? Buffer.byteLength(input) : input.length;
  if (bytes > limits.maxBytes)
    tooComplex(source, `the JSON is ${bytes} bytes, over ${limits.maxBytes}`, limits);
  // Structural characters are ASCII and never part of a multi-byte UTF-8 sequence, so bytes
  // are scanned as they are.
  const codeAt =
    typeof input === "string"
      ? (index: number) => input.charCodeAt(index)
      : (index: number) => input[index];
  let depth = 0;
  let nodes = 1;
  let inString = false;
  for (let index = 0; index < input.length; index++) {
    const code = codeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limits.maxDepth)
        tooComplex(source, `the JSON nests deeper than ${limits.maxDepth} levels`, limits);
      if (++nodes > limits.maxNodes)
        tooComplex(source, `the JSON holds more than ${limits.maxNodes} values`, limits);
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
    else if (code === COMMA && ++nodes > limits.maxNodes)
      tooComplex(source, `the JSON holds more than ${limits.maxNodes} values`, limits);
  }
}

/**
 * Checks an already parsed value (from YAML, or built in memory) against `limits`, without
 * recursion. Same rules and error as {@link checkJsonText}; a cycle counts as too many values.
 *
 * @example
 * ```ts
 * checkJsonValue({ steps: [] }, { source: "trajectory" }); // fine
 * ```
 */
export function checkJsonValue(
  value: unknown,
  options: { source?: string; limits?: Partial<JsonLimits> } = {},
): void {
  const limits = { ...DEFAULT_JSON_LIMITS, ...options.limits };
  const source = options.source ?? "input";
  const stack: [unknown, number][] = [[value, 0]];
  let nodes = 0;
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [current, depth] = item;
    if (++nodes > limits.maxNodes)
      tooComplex(source, `the value holds more than ${limits.maxNodes} values`, limits);
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > limits.maxDepth)
      tooComplex(source, `the value nests deeper than ${limits.maxDepth} levels`, limits);
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
}
