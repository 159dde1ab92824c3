import type { CallTokens } from "./pricing.js";

type Json = Record<string, unknown>;
const record = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;
const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * Token use of an OpenAI Chat Completions response body: `usage.prompt_tokens` (cached
 * included), `usage.completion_tokens`, `usage.prompt_tokens_details.cached_tokens`.
 * Undefined when the body has no usage object.
 */
export function openAiUsage(body: unknown): CallTokens | undefined {
  const usage = record(record(body)?.usage);
  if (!usage) return undefined;
  const inputTokens = count(usage.prompt_tokens ?? usage.input_tokens);
  const details = record(usage.prompt_tokens_details ?? usage.input_tokens_details);
  return {
    inputTokens,
    outputTokens: count(usage.completion_tokens ?? usage.output_tokens),
    cachedTokens: Math.min(inputTokens, count(details?.cached_tokens)),
  };
}

/**
 * Token use of an Anthropic Messages response body. Anthropic's `input_tokens` leaves out
 * cache reads and writes; here input counts all of them and `cachedTokens` the cache reads.
 */
export function anthropicUsage(body: unknown): CallTokens | undefined {
  const usage = record(record(body)?.usage);
  if (!usage) return undefined;
  const cacheRead = count(usage.cache_read_input_tokens);
  return {
    inputTokens: count(usage.input_tokens) + cacheRead + count(usage.cache_creation_input_tokens),
    outputTokens: count(usage.output_tokens),
    cachedTokens: cacheRead,
  };
}
