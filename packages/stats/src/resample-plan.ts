import { DistDebugError } from "@distdebug/schema";
import { fillIndices, fnv1a32 } from "./internal/rng.js";

/**
 * A shared plan of incident-bootstrap indices: replicate-outer, incident-inner.
 * `indices[b * size + i]` is the incident drawn at position i of replicate b.
 */
export interface ResamplePlan {
  readonly seed: number;
  readonly stream: string;
  readonly size: number;
  readonly resamples: number;
  /** Uint16Array when size <= 65536, else Uint32Array. */
  readonly indices: Uint32Array | Uint16Array;
}

/** Options of {@link createResamplePlan}. */
export interface ResamplePlanOptions {
  /** Number of incidents n (>= 1). */
  size: number;
  /** Replicates B. Default 10,000. */
  resamples?: number;
  /** Unsigned 32-bit seed. Default 1. */
  seed?: number;
  /**
   * Name of an independent stream (for example a subgroup); `""` (default) is the main plan.
   * A named stream is seeded with `seed XOR fnv1a32(stream)`.
   */
  stream?: string;
}

/** Default bootstrap resamples. */
export const DEFAULT_RESAMPLES = 10_000;
/** Default seed of the resample plan. */
export const DEFAULT_SEED = 1;

/** Throws `INVALID_ARGUMENT` unless `seed` is an integer in [0, 2^32). */
export function checkSeed(seed: number): void {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `seed: expected an integer from 0 to 4294967295, found ${seed}`,
      data: { path: "seed", found: seed },
    });
}

/** Throws `INVALID_ARGUMENT` unless `resamples` is a positive integer. */
export function checkResamples(resamples: number): void {
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > 10_000_000)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `resamples: expected an integer from 1 to 10000000, found ${resamples}`,
      data: { path: "resamples", found: resamples },
    });
}

/**
 * Draws the resample plan: for replicate b = 0..B-1, for position i = 0..n-1, one index in
 * [0, n) from xoshiro128** (seeded by splitmix32) by rejection sampling. Deterministic: the
 * same options give the same indices on every platform.
 *
 * @example
 * ```ts
 * const plan = createResamplePlan({ size: 120, resamples: 10_000, seed: 1 });
 * plan.indices.length; // 1_200_000
 * ```
 */
export function createResamplePlan(options: ResamplePlanOptions): ResamplePlan {
  const size = options.size;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  const stream = options.stream ?? "";
  checkSeed(seed);
  checkResamples(resamples);
  if (!Number.isInteger(size) || size < 1)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `size: expected a positive integer number of incidents, found ${size}`,
      data: { path: "size", found: size },
    });
  const indices =
    size <= 0x10000 ? new Uint16Array(size * resamples) : new Uint32Array(size * resamples);
  fillIndices(stream === "" ? seed : (seed ^ fnv1a32(stream)) >>> 0, size, indices);
  return { seed, stream, size, resamples, indices };
}

const cache = new Map<string, ResamplePlan>();
const CACHE_ENTRIES = 64;

/**
 * {@link createResamplePlan} memoized (the 64 most recent plans), for summaries of many
 * configurations on one dataset: their subgroup plans are the same. The plan is shared:
 * callers must not modify its indices.
 */
export function sharedResamplePlan(options: ResamplePlanOptions): ResamplePlan {
  const key = `${options.seed ?? DEFAULT_SEED}/${options.resamples ?? DEFAULT_RESAMPLES}/${options.size}/${options.stream ?? ""}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const plan = createResamplePlan(options);
  cache.set(key, plan);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return plan;
}
