import type { Estimate, StatsMethod, Summary } from "@distdebug/schema";
import { exactMean, exactSum } from "./internal/exact-sum.js";
import { normalCdf, normalQuantile } from "./normal.js";
import { quantilesR7Unsorted } from "./quantile.js";
import type { ResamplePlan } from "./resample-plan.js";

/** A difference with P(delta <= 0) (the schema's `Difference`). */
export type Difference = NonNullable<Summary["localizationGap"]>;

/** `percentile` or `bca`. */
export type IntervalMethod = StatsMethod["method"];

/** Interval options. */
export interface IntervalOptions {
  /** Default `"percentile"`. */
  method?: IntervalMethod;
  /** Two-sided level. Default 0.95. */
  confidence?: number;
}

/** Default confidence level. */
export const DEFAULT_CONFIDENCE = 0.95;

/** Rounding noise allowed when comparing a replicate with the estimate. */
function tolerance(theta: number): number {
  return 1e-12 * Math.max(1, Math.abs(theta));
}

/**
 * The mean of `values` over each replicate of the plan (`values[i]` is incident i's value).
 *
 * @example
 * ```ts
 * const plan = createResamplePlan({ size: 3, resamples: 1000 });
 * replicateMeans([0, 0.5, 1], plan).length; // 1000
 * ```
 */
export function replicateMeans(values: ArrayLike<number>, plan: ResamplePlan): Float64Array {
  const n = plan.size;
  if (values.length !== n)
    throw new RangeError(`replicateMeans: ${values.length} values for a plan of ${n}`);
  const source = Float64Array.from(values);
  const indices = plan.indices;
  const out = new Float64Array(plan.resamples);
  const unrolled = n - (n % 4);
  let offset = 0;
  for (let b = 0; b < plan.resamples; b++) {
    // Four running sums, combined as (s0 + s1) + (s2 + s3): a fixed order, so results are reproducible.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    const end4 = offset + unrolled;
    const end = offset + n;
    for (; offset < end4; offset += 4) {
      s0 += source[indices[offset]!]!;
      s1 += source[indices[offset + 1]!]!;
      s2 += source[indices[offset + 2]!]!;
      s3 += source[indices[offset + 3]!]!;
    }
    for (; offset < end; offset++) s0 += source[indices[offset]!]!;
    out[b] = (s0 + s1 + (s2 + s3)) / n;
  }
  return out;
}

/**
 * Leave-one-out means of `values` (exact sums); empty for fewer than two values.
 *
 * @example
 * ```ts
 * jackknifeMeans([0, 0.5, 1]); // Float64Array [0.75, 0.5, 0.25]
 * ```
 */
export function jackknifeMeans(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  if (n < 2) return new Float64Array(0);
  const total = exactSum(values);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (total - values[i]!) / (n - 1);
  return out;
}

/**
 * BCa acceleration from jackknife estimates, one array per independent sample (stratum),
 * the formula of scipy.stats.bootstrap: a = Σ_j Σ U³/n_j³ / (6 (Σ_j Σ U²/n_j²)^1.5),
 * U = (n_j - 1)(mean of the jackknife estimates - each). 0 when there is no spread.
 *
 * @example
 * ```ts
 * acceleration([jackknifeMeans([0, 0, 0, 1])]); // 0.0962... (right-skewed data)
 * ```
 */
export function acceleration(jackknife: readonly ArrayLike<number>[]): number {
  let numerator = 0;
  let denominator = 0;
  for (const sample of jackknife) {
    const n = sample.length;
    if (n < 2) continue;
    const center = exactMean(sample);
    const cubes = new Float64Array(n);
    const squares = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const u = (n - 1) * (center - sample[i]!);
      cubes[i] = u * u * u;
      squares[i] = u * u;
    }
    numerator += exactSum(cubes) / n ** 3;
    denominator += exactSum(squares) / n ** 2;
  }
  return denominator > 0 ? numerator / (6 * denominator ** 1.5) : 0;
}

/** Input of `bootstrapInterval`. */
export interface IntervalInput extends IntervalOptions {
  /** The point estimate on the original data. */
  estimate: number;
  /** The statistic on each bootstrap replicate. */
  replicates: Float64Array;
  /** Jackknife estimates per independent sample; needed by `bca` only. */
  jackknife?: readonly ArrayLike<number>[];
}

/**
 * The bootstrap interval of one statistic from its replicates: the percentile interval with
 * R-7 quantiles, or BCa (z0 from the mid-rank share of replicates below the estimate, as
 * scipy; acceleration from the jackknife). A bootstrap distribution with no spread gives
 * `[estimate, estimate]`; BCa falls back to percentile when z0 is infinite.
 *
 * @example
 * ```ts
 * const plan = createResamplePlan({ size: 4 });
 * const values = [0, 0.5, 1, 1];
 * bootstrapInterval({ estimate: 0.625, replicates: replicateMeans(values, plan) });
 * ```
 */
export function bootstrapInterval(input: IntervalInput): { low: number; high: number } {
  const theta = input.estimate;
  const confidence = input.confidence ?? DEFAULT_CONFIDENCE;
  const replicates = input.replicates;
  const count = replicates.length;
  const tol = tolerance(theta);
  let smallest = Number.POSITIVE_INFINITY;
  let largest = Number.NEGATIVE_INFINITY;
  for (let b = 0; b < count; b++) {
    const value = replicates[b]!;
    if (value < smallest) smallest = value;
    if (value > largest) largest = value;
  }
  if (count === 0 || largest - smallest <= tol) return { low: theta, high: theta };
  let lowLevel = (1 - confidence) / 2;
  let highLevel = 1 - lowLevel;
  if ((input.method ?? "percentile") === "bca") {
    let below = 0;
    let atMost = 0;
    for (let b = 0; b < count; b++) {
      const value = replicates[b]!;
      if (value < theta - tol) below++;
      if (value <= theta + tol) atMost++;
    }
    const z0 = normalQuantile((below + atMost) / (2 * count));
    if (Number.isFinite(z0)) {
      const a = acceleration(input.jackknife ?? []);
      const adjust = (level: number): number => {
        const w = z0 + normalQuantile(level);
        const denominator = 1 - a * w;
        if (denominator <= 0) return w > 0 ? 1 : 0;
        return normalCdf(z0 + w / denominator);
      };
      lowLevel = adjust(lowLevel);
      highLevel = adjust(highLevel);
    }
  }
  const [first = Number.NaN, second = Number.NaN] = quantilesR7Unsorted(
    Float64Array.from(replicates),
    [Math.min(lowLevel, highLevel), Math.max(lowLevel, highLevel)],
  );
  let low = first;
  let high = second;
  if (Math.abs(low - theta) <= tol) low = theta;
  if (Math.abs(high - theta) <= tol) high = theta;
  return { low, high };
}

/**
 * Sample standard deviation (n - 1) from correctly rounded sums; 0 for fewer than two values.
 *
 * @example
 * ```ts
 * sampleSd([0, 1]); // 0.7071067811865476
 * ```
 */
export function sampleSd(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return 0;
  const center = exactMean(values);
  const squares = new Float64Array(n);
  for (let i = 0; i < n; i++) squares[i] = (values[i]! - center) ** 2;
  return Math.sqrt(exactSum(squares) / (n - 1));
}

/**
 * Analytic clustered standard error: sd of incident values / sqrt(n); 0 for n < 2.
 *
 * @example
 * ```ts
 * clusteredSe([0, 1]); // 0.5
 * ```
 */
export function clusteredSe(values: ArrayLike<number>): number {
  return values.length < 2 ? 0 : sampleSd(values) / Math.sqrt(values.length);
}

/**
 * Pearson correlation; null when either side has no spread or fewer than two values.
 *
 * @example
 * ```ts
 * correlation([0, 0.5, 1], [0.2, 0.4, 0.9]); // 0.9707...
 * ```
 */
export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  const n = a.length;
  if (n < 2 || b.length !== n) return null;
  const ma = exactMean(a);
  const mb = exactMean(b);
  const xy = new Float64Array(n);
  const xx = new Float64Array(n);
  const yy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    xy[i] = x * y;
    xx[i] = x * x;
    yy[i] = y * y;
  }
  const sxx = exactSum(xx);
  const syy = exactSum(yy);
  if (sxx === 0 || syy === 0) return null;
  return Math.max(-1, Math.min(1, exactSum(xy) / Math.sqrt(sxx * syy)));
}

/** A bootstrap mean with the replicates it came from (for paired reuse). */
export interface MeanResult {
  estimate: Estimate;
  replicates: Float64Array;
}

/**
 * Mean of incident values with its incident-bootstrap interval and analytic clustered SE.
 *
 * @example
 * ```ts
 * const values = [0, 1, 0.5, 1, 0.25];
 * const plan = createResamplePlan({ size: values.length });
 * bootstrapMean(values, plan).estimate; // { mean: 0.55, low, high, se, n: 5 }
 * ```
 */
export function bootstrapMean(
  values: ArrayLike<number>,
  plan: ResamplePlan,
  options: IntervalOptions = {},
): MeanResult {
  const mean = exactMean(values);
  const replicates = replicateMeans(values, plan);
  const { low, high } = bootstrapInterval({
    ...options,
    estimate: mean,
    replicates,
    jackknife: [jackknifeMeans(values)],
  });
  return { estimate: { mean, low, high, se: clusteredSe(values), n: values.length }, replicates };
}

/**
 * Share of replicates with delta <= 0 (ties within rounding noise count as 0).
 *
 * @example
 * ```ts
 * shareAtMostZero(Float64Array.of(-0.1, 0, 0.2, 0.3), 0.1); // 0.5
 * ```
 */
export function shareAtMostZero(replicates: Float64Array, estimate: number): number {
  const tol = tolerance(estimate);
  let count = 0;
  for (let b = 0; b < replicates.length; b++) if (replicates[b]! <= tol) count++;
  return replicates.length === 0 ? 0 : count / replicates.length;
}

/**
 * Paired difference a - b over the same incidents on one shared plan: mean of the incident
 * differences, CI from `replicatesA - replicatesB`, SE of the differences, P(delta <= 0).
 *
 * @example
 * ```ts
 * const plan = createResamplePlan({ size: 3 });
 * const a = bootstrapMean([1, 0.5, 1], plan);
 * const b = bootstrapMean([0.5, 0.5, 0], plan);
 * pairedDifference([1, 0.5, 1], a.replicates, [0.5, 0.5, 0], b.replicates).difference.mean; // 0.5
 * ```
 */
export function pairedDifference(
  a: ArrayLike<number>,
  replicatesA: Float64Array,
  b: ArrayLike<number>,
  replicatesB: Float64Array,
  options: IntervalOptions = {},
): { difference: Difference; replicates: Float64Array; differences: Float64Array } {
  const n = a.length;
  const differences = new Float64Array(n);
  for (let i = 0; i < n; i++) differences[i] = a[i]! - b[i]!;
  const replicates = new Float64Array(replicatesA.length);
  for (let k = 0; k < replicates.length; k++) replicates[k] = replicatesA[k]! - replicatesB[k]!;
  const mean = exactMean(differences);
  const { low, high } = bootstrapInterval({
    ...options,
    estimate: mean,
    replicates,
    jackknife: [jackknifeMeans(differences)],
  });
  return {
    difference: {
      mean,
      low,
      high,
      se: clusteredSe(differences),
      n,
      pAtMostZero: shareAtMostZero(replicates, mean),
    },
    replicates,
    differences,
  };
}

/**
 * Difference of two disjoint groups (a - b) by stratified bootstrap: each group resampled
 * within itself on its own plan; SE = sqrt(se_a² + se_b²); `n` is the total incident count.
 *
 * @example
 * ```ts
 * const a = [1, 0.5, 1];
 * const b = [0, 0.5];
 * const ra = bootstrapMean(a, createResamplePlan({ size: 3, stream: "a" }));
 * const rb = bootstrapMean(b, createResamplePlan({ size: 2, stream: "b" }));
 * stratifiedDifference(a, ra, b, rb).mean; // 0.5833...
 * ```
 */
export function stratifiedDifference(
  a: ArrayLike<number>,
  resultA: MeanResult,
  b: ArrayLike<number>,
  resultB: MeanResult,
  options: IntervalOptions = {},
): Difference {
  const mean = resultA.estimate.mean - resultB.estimate.mean;
  const replicates = new Float64Array(resultA.replicates.length);
  for (let k = 0; k < replicates.length; k++)
    replicates[k] = resultA.replicates[k]! - resultB.replicates[k]!;
  const jackA = Array.from(jackknifeMeans(a), (value) => value - resultB.estimate.mean);
  const jackB = Array.from(jackknifeMeans(b), (value) => resultA.estimate.mean - value);
  const { low, high } = bootstrapInterval({
    ...options,
    estimate: mean,
    replicates,
    jackknife: [jackA, jackB],
  });
  return {
    mean,
    low,
    high,
    se: Math.sqrt(resultA.estimate.se ** 2 + resultB.estimate.se ** 2),
    n: a.length + b.length,
    pAtMostZero: shareAtMostZero(replicates, mean),
  };
}
