import type { CallTokens, ModelPrices } from "@distdebug/schema";

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
