import type { ModelConfig } from "@distdebug/schema";

type Json = Record<string, unknown>;

const record = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/** Sets every count of a details object (`cached_tokens`, `cache_creation` lifetimes) to 0. */
function zeroCounts(details: Json | undefined, fields?: readonly string[]): void {
  if (!details) return;
  for (const field of fields ?? Object.keys(details))
    if (typeof details[field] === "number") details[field] = 0;
}

/** Anthropic: cache reads and writes folded into `input_tokens`, their own counts 0. */
function foldAnthropic(usage: Json): void {
  usage.input_tokens =
    count(usage.input_tokens) +
    count(usage.cache_read_input_tokens) +
    count(usage.cache_creation_input_tokens);
  zeroCounts(usage, ["cache_read_input_tokens", "cache_creation_input_tokens"]);
  zeroCounts(record(usage.cache_creation));
}

/** OpenAI (Chat Completions, Responses): the prompt count already holds the cached tokens. */
function foldOpenAi(usage: Json): void {
  for (const field of ["prompt_tokens_details", "input_tokens_details"])
    zeroCounts(record(usage[field]), ["cached_tokens", "cache_write_tokens"]);
}

/**
 * The reply body the agent receives: the provider's cache reads and writes are reported as
 * plain input (Anthropic's `cache_read_input_tokens`, `cache_creation_input_tokens` and
 * `cache_creation` lifetimes become 0 and are added to `input_tokens`; OpenAI's
 * `cached_tokens` become 0, the prompt count already holds them). The provider's prompt cache
 * is shared by every attempt on one account, so a cache hit the agent could see would carry
 * information from one attempt to the next; the gateway meters the real counts. A body that
 * is not a JSON object with a `usage` object is returned as it is.
 *
 * @example
 * ```ts
 * hideCacheUsage("anthropic", '{"usage":{"input_tokens":10,"cache_read_input_tokens":900,"output_tokens":5}}');
 * // '{"usage":{"input_tokens":910,"cache_read_input_tokens":0,"output_tokens":5}}'
 * ```
 */
export function hideCacheUsage(provider: ModelConfig["provider"], text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const usage = record(record(body)?.usage);
  if (!usage) return text;
  if (provider === "anthropic") foldAnthropic(usage);
  else foldOpenAi(usage);
  return JSON.stringify(body);
}
