import { type FormatKind, formatOf, formats, isFormatKind } from "./formats.js";
import { isMiniSweAgentTrajectory } from "./mini-swe-agent.js";
import { invalidFile, type ParseOptions, parseJsonInput, readFormatTag } from "./parse.js";
import { type DiagnosisParseOptions, parsersByKind } from "./parsers.js";

/** What a file is: one of our kinds, or a mini-swe-agent trajectory (read as a trajectory). */
export interface DetectedFormat {
  kind: FormatKind;
  /** The `format` tag, or `mini-swe-agent-1.1` / `mini-swe-agent-legacy` for converted input. */
  tag: string;
}

/**
 * Tells which kind of DistDebug file a value is, from its `format` field (or the shape of a
 * mini-swe-agent trajectory). Throws `INVALID_FILE` for an unknown kind or a newer major.
 */
export function detectFormat(input: unknown, options: ParseOptions = {}): DetectedFormat {
  const source = options.source ?? "input";
  const value = parseJsonInput(input, options);
  if (isMiniSweAgentTrajectory(value)) {
    const tag = Array.isArray(value)
      ? "mini-swe-agent-legacy"
      : String((value as { trajectory_format: string }).trajectory_format);
    return { kind: "trajectory", tag };
  }
  const found = readFormatTag(value);
  const known = Object.keys(formats)
    .map((kind) => formatOf(kind as FormatKind))
    .join(", ");
  if (!found) {
    const raw =
      value !== null && typeof value === "object"
        ? (value as { format?: unknown }).format
        : undefined;
    invalidFile(
      source,
      raw === undefined
        ? `no "format" field, so this is not a DistDebug file; expected one of ${known}, or a mini-swe-agent trajectory`
        : `"format" is ${JSON.stringify(raw)}, not one of ${known}`,
      {
        reason: "unknown-format",
        issues: [
          {
            path: "$.format",
            expected: `one of ${known}`,
            found: raw === undefined ? "nothing" : JSON.stringify(raw),
          },
        ],
      },
    );
  }
  if (!isFormatKind(found.kind)) {
    invalidFile(source, `unknown format ${found.tag}; expected one of ${known}`, {
      reason: "unknown-format",
      issues: [{ path: "$.format", expected: `one of ${known}`, found: JSON.stringify(found.tag) }],
    });
  }
  if (found.major > formats[found.kind].major) {
    invalidFile(
      source,
      `${found.tag} was written by a newer DistDebug; this version reads ${formatOf(found.kind)}. Upgrade the distdebug packages to read it.`,
      { kind: found.kind, reason: "newer-version", issues: [] },
    );
  }
  return { kind: found.kind, tag: found.tag };
}

/**
 * Detects the kind of any DistDebug file and validates it (a diagnosis with at most
 * `options.maxDiagnosisBlocks` blocks, default 200).
 * @returns the kind and the typed value (trajectories from mini-swe-agent come back converted).
 */
export function parseAnyFile(
  input: unknown,
  options: DiagnosisParseOptions = {},
): DetectedFormat & { value: unknown } {
  const value = parseJsonInput(input, options);
  const detected = detectFormat(value, options);
  return { ...detected, value: parsersByKind[detected.kind](value, options) };
}
