type Json = Record<string, unknown>;

const record = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * Tokens of one model call by price class. `inputTokens` includes `cachedTokens` and the
 * cache writes (together never more than it); `outputTokens` includes `reasoningTokens`.
 */
export interface CallTokens {
  /** Prompt tokens, cache reads and writes included. */
  inputTokens: number;
  /** Completion tokens, reasoning included. */
  outputTokens: number;
  /** Prompt tokens read from the provider's cache. */
  cachedTokens: number;
  /** Prompt tokens written to the provider's cache for 5 minutes (Anthropic). Default 0. */
  cacheWrite5mTokens?: number;
  /**
   * Prompt tokens written to the provider's cache for 1 hour (Anthropic), and cache writes
   * whose lifetime the reply does not name (priced as the dearer lifetime). Default 0.
   */
  cacheWrite1hTokens?: number;
  /** Completion tokens spent reasoning (OpenAI `reasoning_tokens`). Default 0. */
  reasoningTokens?: number;
}

/**
 * Which API shape a usage object has. `auto` reads a body of unknown origin (a mini-swe-agent
 * trajectory): Anthropic when it has Anthropic's cache fields and no `prompt_tokens`, else
 * OpenAI (the two agree when there are no cache fields).
 */
export type WireProvider = "anthropic" | "openai" | "auto";

/**
 * Token use of a model API response body (its `usage` object), undefined when there is none.
 * - Anthropic Messages: `input_tokens` leaves out cache reads and writes, so input is
 *   `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` and cached is
 *   `cache_read_input_tokens`. Cache writes are split by lifetime from
 *   `cache_creation.ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`; writes the
 *   split does not cover (an older reply without `cache_creation`) count as 1-hour writes,
 *   the dearer class, so a cost computed from them is never below the bill.
 * - OpenAI Chat Completions: `prompt_tokens` (cached included),
 *   `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`;
 *   the Responses API's `input_tokens`, `input_tokens_details.cached_tokens` and
 *   `output_tokens_details.reasoning_tokens` are read the same way. Reasoning is part of the
 *   completion count; a reply whose reasoning count exceeds its completion count (a provider
 *   that counts them apart) adds the two.
 *
 * Missing, negative or non-numeric counts read as 0; cached never exceeds input. The
 * optional classes are present only when not zero.
 *
 * @example
 * ```ts
 * usageFromWire("anthropic", {
 *   usage: { input_tokens: 100, cache_read_input_tokens: 900, cache_creation_input_tokens: 50, output_tokens: 7 },
 * }); // { inputTokens: 1050, outputTokens: 7, cachedTokens: 900, cacheWrite1hTokens: 50 }
 * ```
 */
export function usageFromWire(provider: WireProvider, body: unknown): CallTokens | undefined {
  const usage = record(record(body)?.usage);
  if (!usage) return undefined;
  const anthropic =
    provider === "anthropic" ||
    (provider === "auto" &&
      usage.prompt_tokens === undefined &&
      (usage.cache_read_input_tokens !== undefined ||
        usage.cache_creation_input_tokens !== undefined));
  const tokens = anthropic ? anthropicTokens(usage) : openAiTokens(usage);
  return { ...tokens, cachedTokens: Math.min(tokens.cachedTokens, tokens.inputTokens) };
}

/** The optional token classes that are not zero. */
function nonZero(classes: {
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  reasoningTokens: number;
}): Partial<CallTokens> {
  return Object.fromEntries(Object.entries(classes).filter(([, value]) => value > 0));
}

function anthropicTokens(usage: Json): CallTokens {
  const cacheRead = count(usage.cache_read_input_tokens);
  const lifetimes = record(usage.cache_creation);
  const write5m = count(lifetimes?.ephemeral_5m_input_tokens);
  const write1h = count(lifetimes?.ephemeral_1h_input_tokens);
  const writes = Math.max(count(usage.cache_creation_input_tokens), write5m + write1h);
  return {
    inputTokens: count(usage.input_tokens) + cacheRead + writes,
    outputTokens: count(usage.output_tokens),
    cachedTokens: cacheRead,
    ...nonZero({
      cacheWrite5mTokens: write5m,
      cacheWrite1hTokens: writes - write5m,
      reasoningTokens: 0,
    }),
  };
}

function openAiTokens(usage: Json): CallTokens {
  const details = record(usage.prompt_tokens_details ?? usage.input_tokens_details);
  const outputDetails = record(usage.completion_tokens_details ?? usage.output_tokens_details);
  const completion = count(usage.completion_tokens ?? usage.output_tokens);
  const reasoning = count(outputDetails?.reasoning_tokens);
  return {
    inputTokens: count(usage.prompt_tokens ?? usage.input_tokens),
    outputTokens: reasoning > completion ? completion + reasoning : completion,
    cachedTokens: count(details?.cached_tokens),
    ...nonZero({ cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: reasoning }),
  };
}

/** Sets the named counts (every count without names) of a usage details object to 0. */
function zeroCounts(details: Json | undefined, fields?: readonly string[]): void {
  if (!details) return;
  for (const field of fields ?? Object.keys(details))
    if (typeof details[field] === "number") details[field] = 0;
}

/**
 * Rewrites, in place, the `usage` of a model API response body so that it shows no cache use:
 * Anthropic's `cache_read_input_tokens`, `cache_creation_input_tokens` and `cache_creation`
 * lifetimes become 0 and are added to `input_tokens`; OpenAI's `cached_tokens` (Chat
 * Completions and Responses) become 0, the prompt count already holds them. The input and
 * output totals `usageFromWire` reads stay the same. A body without a `usage` object is left
 * as it is.
 *
 * @example
 * ```ts
 * const body = { usage: { input_tokens: 10, cache_read_input_tokens: 900, output_tokens: 5 } };
 * foldCacheUsage("anthropic", body); // body.usage: { input_tokens: 910, cache_read_input_tokens: 0, output_tokens: 5 }
 * ```
 */
export function foldCacheUsage(provider: "anthropic" | "openai", body: unknown): void {
  const usage = record(record(body)?.usage);
  if (!usage) return;
  if (provider === "anthropic") {
    usage.input_tokens =
      count(usage.input_tokens) +
      count(usage.cache_read_input_tokens) +
      count(usage.cache_creation_input_tokens);
    zeroCounts(usage, ["cache_read_input_tokens", "cache_creation_input_tokens"]);
    zeroCounts(record(usage.cache_creation));
  } else
    for (const field of ["prompt_tokens_details", "input_tokens_details"])
      zeroCounts(record(usage[field]), ["cached_tokens", "cache_write_tokens"]);
}
