import type { ModelPrices, Usage } from "@distdebug/schema";

/** Tokens of one model call. `inputTokens` includes `cachedTokens`. */
export interface CallTokens {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

/**
 * The cost in US dollars of a call's tokens at the config's prices (per million tokens);
 * cached input at `cachedInputPerMillion` (default: the input price). Null without prices:
 * tokens are still counted, the cost is unknown.
 *
 * @example
 * ```ts
 * costOf({ inputTokens: 1000, outputTokens: 100, cachedTokens: 0 }, { inputPerMillion: 1.25, outputPerMillion: 10 }); // 0.00225
 * ```
 */
export function costOf(tokens: CallTokens, prices: ModelPrices | undefined): number | null {
  if (!prices) return null;
  const cached = Math.min(tokens.cachedTokens, tokens.inputTokens);
  const cachedPrice = prices.cachedInputPerMillion ?? prices.inputPerMillion;
  return (
    ((tokens.inputTokens - cached) * prices.inputPerMillion +
      cached * cachedPrice +
      tokens.outputTokens * prices.outputPerMillion) /
    1_000_000
  );
}

/**
 * Adds one call to a usage total. A known cost plus an unknown one stays known only while
 * every call had a price; the first unpriced call makes the total's cost null.
 */
export function addUsage(total: Usage, call: CallTokens & { costUsd: number | null }): Usage {
  return {
    inputTokens: total.inputTokens + call.inputTokens,
    outputTokens: total.outputTokens + call.outputTokens,
    cachedTokens: total.cachedTokens + call.cachedTokens,
    calls: total.calls + 1,
    costUsd:
      call.costUsd === null || (total.costUsd === null && total.calls > 0)
        ? null
        : (total.costUsd ?? 0) + call.costUsd,
  };
}
