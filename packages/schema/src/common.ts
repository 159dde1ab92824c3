import { z } from "zod";
import { withJsonSchemaRule } from "./internal/json-rule.js";

/** The seven languages the evaluator parses with tree-sitter. */
export const Language = z.enum(["java", "go", "rust", "python", "cpp", "scala", "c"]);
/** One of the seven parsed languages. */
export type Language = z.infer<typeof Language>;

/** A repository-relative POSIX path as written in files (normalized by the evaluator). */
export const RepoPath = z.string().min(1, "a non-empty path");

/**
 * A string of at least `min` characters, counted as JSON Schema's `minLength` counts them
 * (Unicode code points: an emoji is one), not as JavaScript's `length` (UTF-16 units), so
 * both validators agree. For `min` 1 plain `.min(1)` is the same rule.
 */
export function textOfAtLeast(min: number) {
  return withJsonSchemaRule(
    z.string().refine((text) => [...text].length >= min, `at least ${min} characters`),
    { jsonSchema: { minLength: min } },
  );
}

/**
 * A string of `min` (default 0; `.min`, which counts UTF-16 units, so use it for 0 or 1 only)
 * to `max` characters, `max` counted as JSON Schema's `maxLength` counts them (Unicode code
 * points), so both validators agree; a text within `max` UTF-16 units is accepted without
 * counting.
 */
export function textOfAtMost(max: number, min = 0) {
  return withJsonSchemaRule(
    z
      .string()
      .min(min)
      .refine((text) => text.length <= max || codePointsAtMost(text, max), {
        message: `at most ${max} characters`,
      }),
    { jsonSchema: { maxLength: max } },
  );
}

/** Does `text` hold at most `max` code points? (Stops counting past `max`.) */
function codePointsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const _ of text) if (++count > max) return false;
  return true;
}

/** A 1-based line number. */
export const LineNumber = z.number().int().min(1);

/** A full 40-hex git commit id. */
export const CommitId = z
  .string()
  .regex(/^[0-9a-f]{40}$/, "a full 40-character lowercase hex commit id");

/** A sha256 hex digest. */
export const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "a 64-character hex sha256 digest");

/** An ISO 8601 timestamp such as `2026-12-02T18:19:00.000Z`. */
export const Timestamp = z.iso.datetime({ offset: true });

/** Token use and cost: per model call, per attempt, per run. */
export const Usage = z.strictObject({
  /** Prompt tokens, cached ones included. */
  inputTokens: z.number().int().min(0),
  /** Completion tokens. */
  outputTokens: z.number().int().min(0),
  /** Prompt tokens served from the provider's cache (a subset of inputTokens). */
  cachedTokens: z.number().int().min(0).default(0),
  /** Number of model calls. */
  calls: z.number().int().min(0).default(0),
  /** Cost in US dollars; null when no price is known (tokens are still counted). */
  costUsd: z.number().min(0).nullable().default(null),
});
/** Token use and cost. */
export type Usage = z.infer<typeof Usage>;

/** Usage of nothing: zero tokens, zero calls, unknown cost. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null };
}

/**
 * The sum of two usages (a single call is a usage with `calls: 1`). The cost stays known only
 * while every call had a price: the first unpriced call makes it null. A usage of no calls
 * and unknown cost (such as {@link emptyUsage}) adds nothing.
 *
 * @example
 * ```ts
 * addUsage(emptyUsage(), { inputTokens: 10, outputTokens: 2, cachedTokens: 0, calls: 1, costUsd: 0.01 });
 * // { inputTokens: 10, outputTokens: 2, cachedTokens: 0, calls: 1, costUsd: 0.01 }
 * ```
 */
export function addUsage(total: Usage, more: Usage): Usage {
  const empty = (usage: Usage) => usage.calls === 0 && usage.costUsd === null;
  const costUsd = empty(total)
    ? more.costUsd
    : empty(more)
      ? total.costUsd
      : total.costUsd === null || more.costUsd === null
        ? null
        : total.costUsd + more.costUsd;
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cachedTokens: total.cachedTokens + more.cachedTokens,
    calls: total.calls + more.calls,
    costUsd,
  };
}

/**
 * The dollars a usage spent, as every report shows it: its `costUsd`, or 0 when it made no
 * model calls (an offline agent, such as the baseline or a command agent that never called the
 * gateway, spent nothing: `$0.00`, never `n/a`). Null only when calls were made at an unknown price.
 *
 * @example
 * ```ts
 * spentUsd(emptyUsage()); // 0
 * spentUsd({ ...emptyUsage(), calls: 2 }); // null
 * ```
 */
export function spentUsd(usage: Usage): number | null {
  return usage.calls === 0 && usage.costUsd === null ? 0 : usage.costUsd;
}

/**
 * The `format` field of every DistDebug file: `distdebug.<kind>/<major>`.
 * @param kind - the file kind, for example `diagnosis`.
 * @param major - the major version the schema describes.
 */
export function formatTag<const Kind extends string, const Major extends number>(
  kind: Kind,
  major: Major,
) {
  return z.literal(`distdebug.${kind}/${major}` as `distdebug.${Kind}/${Major}`);
}
