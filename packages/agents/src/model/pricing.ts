import {
  type CallTokens,
  effectivePrices,
  type ModelConfig,
  type ModelPrices,
} from "@distdebug/schema";

/**
 * The cost in US dollars of a call's tokens at the config's prices (per million tokens), each
 * token class at its own price: plain input, cached input, 5-minute and 1-hour cache writes,
 * output and reasoning (defaults from `effectivePrices`). Null without prices: tokens are
 * still counted, the cost is unknown.
 *
 * @example
 * ```ts
 * costOf({ inputTokens: 1000, outputTokens: 100, cachedTokens: 0 }, { inputPerMillion: 1.25, outputPerMillion: 10 }); // 0.00225
 * ```
 */
export function costOf(tokens: CallTokens, prices: ModelPrices | undefined): number | null {
  if (!prices) return null;
  const price = effectivePrices(prices);
  const input = Math.max(0, tokens.inputTokens);
  const cached = Math.min(tokens.cachedTokens, input);
  const write5m = Math.min(tokens.cacheWrite5mTokens ?? 0, input - cached);
  const write1h = Math.min(tokens.cacheWrite1hTokens ?? 0, input - cached - write5m);
  const reasoning = Math.min(tokens.reasoningTokens ?? 0, tokens.outputTokens);
  return (
    ((input - cached - write5m - write1h) * price.inputPerMillion +
      cached * price.cachedInputPerMillion +
      write5m * price.cacheWrite5mPerMillion +
      write1h * price.cacheWrite1hPerMillion +
      (tokens.outputTokens - reasoning) * price.outputPerMillion +
      reasoning * price.reasoningPerMillion) /
    1_000_000
  );
}

/**
 * The most a call of these input and output token counts can cost, whatever their classes:
 * every input token at the dearest input class the protocol bills (with Anthropic, a 1-hour
 * cache write at the default prices; OpenAI bills no cache writes) and every output token at
 * the dearer of output and reasoning. The budget admits calls and meters abandoned ones at
 * this cost. Null without prices.
 *
 * @example
 * ```ts
 * worstCaseCostOf({ inputTokens: 1000, outputTokens: 100, cachedTokens: 0 }, { inputPerMillion: 1, outputPerMillion: 10 }, "anthropic"); // 0.003
 * ```
 */
export function worstCaseCostOf(
  tokens: CallTokens,
  prices: ModelPrices | undefined,
  provider: ModelConfig["provider"],
): number | null {
  if (!prices) return null;
  const price = effectivePrices(prices);
  const input = Math.max(
    price.inputPerMillion,
    price.cachedInputPerMillion,
    ...(provider === "anthropic"
      ? [price.cacheWrite5mPerMillion, price.cacheWrite1hPerMillion]
      : []),
  );
  const output = Math.max(price.outputPerMillion, price.reasoningPerMillion);
  return (tokens.inputTokens * input + tokens.outputTokens * output) / 1_000_000;
}
