import { DistDebugError, type StatsMethod } from "@distdebug/schema";
import { DEFAULT_CONFIDENCE, type IntervalMethod } from "./bootstrap.js";
import { RNG_NAME } from "./internal/rng.js";
import { QUANTILE_RULE } from "./quantile.js";
import { checkResamples, checkSeed, DEFAULT_RESAMPLES, DEFAULT_SEED } from "./resample-plan.js";

/** This package's version, recorded in every result (kept equal to package.json by a test). */
export const STATS_VERSION = "0.1.0";

/** The interval settings shared by `summarize` and `compare`. */
export interface MethodOptions {
  /** Unsigned 32-bit seed of the resample plan. Default 1. */
  seed?: number;
  /** Bootstrap resamples B. Default 10,000. */
  resamples?: number;
  /** `"percentile"` (default, R-7 quantiles) or `"bca"` (jackknife acceleration over incidents). */
  method?: IntervalMethod;
  /** Two-sided confidence level. Default 0.95. */
  confidence?: number;
}

/**
 * Resolves defaults, checks the values, and returns the method metadata recorded beside
 * every figure: `{seed, resamples, method, rng, quantile, confidence, version}`.
 *
 * @example
 * ```ts
 * resolveMethod({ seed: 7 }).resamples; // 10000
 * ```
 */
export function resolveMethod(options: MethodOptions = {}): StatsMethod {
  const seed = options.seed ?? DEFAULT_SEED;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const method = options.method ?? "percentile";
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  checkSeed(seed);
  checkResamples(resamples);
  if (method !== "percentile" && method !== "bca")
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `method: expected "percentile" or "bca", found ${JSON.stringify(method)}`,
      data: { path: "method", found: method },
    });
  if (!(confidence > 0 && confidence < 1))
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `confidence: expected a level strictly between 0 and 1 (for example 0.95), found ${confidence}`,
      data: { path: "confidence", found: confidence },
    });
  return {
    seed,
    resamples,
    method,
    rng: RNG_NAME,
    quantile: QUANTILE_RULE,
    confidence,
    version: `@distdebug/stats ${STATS_VERSION}`,
  };
}
