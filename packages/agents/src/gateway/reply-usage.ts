import { foldCacheUsage } from "@distdebug/schema";

/**
 * The reply body the agent receives: the provider's cache reads and writes reported as plain
 * input (see `foldCacheUsage`). The provider's prompt cache is shared by every attempt on one
 * account, so a cache hit the agent could see would carry information from one attempt to the
 * next; the gateway meters the real counts. A body that is not JSON is returned as it is.
 *
 * @example
 * ```ts
 * hideCacheUsage("anthropic", '{"usage":{"input_tokens":10,"cache_read_input_tokens":900,"output_tokens":5}}');
 * // '{"usage":{"input_tokens":910,"cache_read_input_tokens":0,"output_tokens":5}}'
 * ```
 */
export function hideCacheUsage(provider: "openai" | "anthropic", text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== "object" || body === null || !("usage" in body)) return text;
  foldCacheUsage(provider, body);
  return JSON.stringify(body);
}
