/** The quantile rule recorded in every result's method metadata. */
export const QUANTILE_RULE =
  "R-7 (linear interpolation between order statistics, as numpy's default)";

/**
 * The R-7 quantile of sorted values: `h = (n - 1) p`, interpolating linearly between the
 * order statistics around `h` (R's default type 7 and numpy's `linear`).
 *
 * @param sorted - values in ascending order (not checked); at least one.
 * @param p - a probability in [0, 1], clamped.
 * @example
 * ```ts
 * quantileR7(Float64Array.of(1, 2, 3, 4), 0.5); // 2.5
 * ```
 */
export function quantileR7(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * Math.min(1, Math.max(0, p));
  const below = Math.floor(h);
  const above = Math.min(below + 1, n - 1);
  const low = sorted[below]!;
  const high = sorted[above]!;
  const t = h - below;
  return t === 0 ? low : low + (high - low) * t;
}

/** Moves the k-th smallest of `a[left..right]` to position k (Wirth's selection; duplicates stay balanced). */
function select(a: Float64Array, k: number, left: number, right: number): void {
  let lo = left;
  let hi = right;
  while (lo < hi) {
    const pivot = a[k]!;
    let i = lo;
    let j = hi;
    do {
      while (a[i]! < pivot) i++;
      while (pivot < a[j]!) j--;
      if (i <= j) {
        const swap = a[i]!;
        a[i] = a[j]!;
        a[j] = swap;
        i++;
        j--;
      }
    } while (i <= j);
    if (j < k) lo = i;
    if (k < i) hi = j;
  }
}

/**
 * R-7 quantiles at ascending `levels` of unsorted values, by selection instead of a full
 * sort; `scratch` is reordered. Gives exactly what {@link quantileR7} gives on the sorted values.
 */
export function quantilesR7Unsorted(scratch: Float64Array, levels: readonly number[]): number[] {
  const n = scratch.length;
  if (n === 0) return levels.map(() => Number.NaN);
  let start = 0;
  return levels.map((level) => {
    const h = (n - 1) * Math.min(1, Math.max(0, level));
    const below = Math.floor(h);
    if (below >= start) select(scratch, below, start, n - 1);
    const low = scratch[below]!;
    let high = low;
    if (below + 1 < n) {
      high = scratch[below + 1]!;
      for (let i = below + 2; i < n; i++) if (scratch[i]! < high) high = scratch[i]!;
    }
    start = below + 1;
    const t = h - below;
    return t === 0 ? low : low + (high - low) * t;
  });
}
