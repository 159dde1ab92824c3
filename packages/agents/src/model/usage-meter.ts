import {
  addUsage,
  type CallTokens,
  emptyUsage,
  type ModelConfig,
  type ModelPrices,
  type Usage,
} from "@distdebug/schema";
import { costOf, worstCaseCostOf } from "./pricing.js";

/** One metered model call, as it goes into a trajectory's `model-call` step. */
export interface MeteredCall extends CallTokens {
  type: "model-call";
  model: string;
  costUsd: number | null;
  durationMs: number;
  error?: string;
  at: string;
}

/** Budget of a {@link UsageMeter}; 0 means no limit. */
export interface UsageBudget {
  /** Most dollars (only enforceable with prices). Default 0. */
  costLimitUsd?: number;
  /** Most input plus output tokens. Default 0. */
  tokenLimit?: number;
  /** Most calls. Default 0. */
  callLimit?: number;
}

/** A call admitted by {@link UsageMeter.admit}: its worst case counts until released. */
export interface Admission {
  /** Frees the call's reservation (call once, after recording the call). */
  release(): void;
}

/**
 * Counts tokens and cost of model calls against a budget. One meter per attempt; the mini
 * agent and the gateway both record through it, so `usage` is the harness's own measurement.
 *
 * @example
 * ```ts
 * const meter = new UsageMeter({ prices: config.model.prices, budget: { costLimitUsd: 3 } });
 * meter.record({ model: "gpt-5.4", inputTokens: 1200, outputTokens: 80, cachedTokens: 0, durationMs: 900 });
 * if (meter.exceeded()) console.log(meter.exceeded());
 * ```
 */
export class UsageMeter {
  readonly calls: MeteredCall[] = [];
  #usage: Usage = emptyUsage();
  readonly #prices: ModelPrices | undefined;
  readonly #provider: ModelConfig["provider"];
  readonly #budget: UsageBudget;
  readonly #inFlight = new Set<CallTokens>();

  /**
   * @param options.provider - the protocol, for the token classes a worst case may bill
   * (cache writes are Anthropic's). Default `anthropic` (every class).
   */
  constructor(
    options: {
      prices?: ModelPrices | undefined;
      budget?: UsageBudget;
      provider?: ModelConfig["provider"];
    } = {},
  ) {
    this.#prices = options.prices;
    this.#provider = options.provider ?? "anthropic";
    this.#budget = options.budget ?? {};
  }

  /** The most a call of these token counts may cost (see `worstCaseCostOf`). */
  worstCaseCost(tokens: CallTokens): number | null {
    return worstCaseCostOf(tokens, this.#prices, this.#provider);
  }

  /** Totals so far. */
  get usage(): Usage {
    return { ...this.#usage };
  }

  /**
   * Records a finished call (or a failed one with zero tokens and `error`) and returns its
   * step. With `worstCase`, the tokens are the call's admitted worst case (a call the harness
   * gave up on) and are priced at their dearest classes.
   */
  record(
    call: CallTokens & { model: string; durationMs: number; error?: string; worstCase?: boolean },
  ): MeteredCall {
    const costUsd = call.worstCase ? this.worstCaseCost(call) : costOf(call, this.#prices);
    const { cacheWrite5mTokens, cacheWrite1hTokens, reasoningTokens } = call;
    const step: MeteredCall = {
      type: "model-call",
      model: call.model,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      cachedTokens: call.cachedTokens,
      ...(cacheWrite5mTokens ? { cacheWrite5mTokens } : {}),
      ...(cacheWrite1hTokens ? { cacheWrite1hTokens } : {}),
      ...(reasoningTokens ? { reasoningTokens } : {}),
      costUsd,
      durationMs: call.durationMs,
      ...(call.error === undefined ? {} : { error: call.error }),
      at: new Date().toISOString(),
    };
    this.calls.push(step);
    this.#usage = addUsage(this.#usage, { ...step, calls: 1 });
    return step;
  }

  /** Records a call that failed before any token was used (zero tokens, with its error). */
  recordFailure(call: { model: string; durationMs: number; error: string }): MeteredCall {
    return this.record({ ...call, inputTokens: 0, outputTokens: 0, cachedTokens: 0 });
  }

  /**
   * Admits a call only if the worst case of every call in flight plus this one (tokens, and
   * their cost at the meter's prices) fits what is left of the budget, counting the calls
   * too. Returns the admission to release once the call is recorded, or why it was refused.
   */
  admit(worstCase: CallTokens): Admission | string {
    const over = this.exceeded();
    if (over !== undefined) return over;
    const { costLimitUsd = 0, tokenLimit = 0, callLimit = 0 } = this.#budget;
    const pending = [...this.#inFlight, worstCase];
    const usage = this.#usage;
    if (callLimit > 0 && usage.calls + pending.length > callLimit)
      return `the call limit of ${callLimit} leaves no room (${usage.calls} made, ${this.#inFlight.size} in flight)`;
    const tokens = pending.reduce((sum, call) => sum + call.inputTokens + call.outputTokens, 0);
    const used = usage.inputTokens + usage.outputTokens;
    if (tokenLimit > 0 && used + tokens > tokenLimit)
      return `the token limit of ${tokenLimit} leaves no room: ${used} used, and the calls in flight with this one may use ${tokens} more`;
    const cost = pending.reduce((sum, call) => sum + (this.worstCaseCost(call) ?? 0), 0);
    const spent = usage.costUsd ?? 0;
    if (costLimitUsd > 0 && this.#prices && spent + cost > costLimitUsd)
      return `the cost limit of $${costLimitUsd} leaves no room: $${spent.toFixed(4)} spent, and the calls in flight with this one may cost $${cost.toFixed(4)} more`;
    const reservation = { ...worstCase };
    this.#inFlight.add(reservation);
    return { release: () => this.#inFlight.delete(reservation) };
  }

  /** Why no further call may be made (the budget is used up), or undefined. */
  exceeded(): string | undefined {
    const { costLimitUsd = 0, tokenLimit = 0, callLimit = 0 } = this.#budget;
    const usage = this.#usage;
    if (callLimit > 0 && usage.calls >= callLimit)
      return `the call limit of ${callLimit} is reached`;
    if (costLimitUsd > 0 && usage.costUsd !== null && usage.costUsd >= costLimitUsd)
      return `the cost limit of $${costLimitUsd} is reached ($${usage.costUsd.toFixed(4)} spent)`;
    const tokens = usage.inputTokens + usage.outputTokens;
    if (tokenLimit > 0 && tokens >= tokenLimit)
      return `the token limit of ${tokenLimit} is reached (${tokens} tokens used)`;
    return undefined;
  }
}
