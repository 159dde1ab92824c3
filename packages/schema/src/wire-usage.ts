type Json = Record<string, unknown>;

const record = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/** Tokens of one model call. `inputTokens` includes `cachedTokens`, which never exceeds it. */
export interface CallTokens {
  /** Prompt tokens, cache reads and writes included. */
  inputTokens: number;
  /** Completion tokens. */
  outputTokens: number;
  /** Prompt tokens read from the provider's cache. */
  cachedTokens: number;
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
 *   `cache_read_input_tokens`.
 * - OpenAI Chat Completions: `prompt_tokens` (cached included) and
 *   `prompt_tokens_details.cached_tokens`; the Responses API's `input_tokens` and
 *   `input_tokens_details.cached_tokens` are read the same way.
 *
 * Missing, negative or non-numeric counts read as 0; cached never exceeds input.
 *
 * @example
 * ```ts
 * usageFromWire("anthropic", {
 *   usage: { input_tokens: 100, cache_read_input_tokens: 900, cache_creation_input_tokens: 50, output_tokens: 7 },
 * }); // { inputTokens: 1050, outputTokens: 7, cachedTokens: 900 }
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

function anthropicTokens(usage: Json): CallTokens {
  const cacheRead = count(usage.cache_read_input_tokens);
  return {
    inputTokens: count(usage.input_tokens) + cacheRead + count(usage.cache_creation_input_tokens),
    outputTokens: count(usage.output_tokens),
    cachedTokens: cacheRead,
  };
}

function openAiTokens(usage: Json): CallTokens {
  const details = record(usage.prompt_tokens_details ?? usage.input_tokens_details);
  return {
    inputTokens: count(usage.prompt_tokens ?? usage.input_tokens),
    outputTokens: count(usage.completion_tokens ?? usage.output_tokens),
    cachedTokens: count(details?.cached_tokens),
  };
}
