/**
 * The correctly rounded sum of finite numbers (Shewchuk's partials, as Python's `math.fsum`).
 * Order-independent: reordering the input never changes the result, so a mean defined as
 * `exactSum(values) / n` is reproducible by any implementation that rounds the same way.
 */
export function exactSum(values: ArrayLike<number>): number {
  const partials: number[] = [];
  for (let k = 0; k < values.length; k++) {
    let x = values[k]!;
    let used = 0;
    for (let j = 0; j < partials.length; j++) {
      let y = partials[j]!;
      if (Math.abs(x) < Math.abs(y)) {
        const swap = x;
        x = y;
        y = swap;
      }
      const high = x + y;
      const low = y - (high - x);
      if (low !== 0) partials[used++] = low;
      x = high;
    }
    partials.length = used;
    partials.push(x);
  }
  let n = partials.length;
  if (n === 0) return 0;
  let high = partials[--n]!;
  let low = 0;
  while (n > 0) {
    const x = high;
    const y = partials[--n]!;
    high = x + y;
    low = y - (high - x);
    if (low !== 0) break;
  }
  // Round half-even across the remaining partials, as fsum does.
  if (n > 0 && ((low < 0 && partials[n - 1]! < 0) || (low > 0 && partials[n - 1]! > 0))) {
    const y = low * 2;
    const x = high + y;
    if (y === x - high) high = x;
  }
  return high;
}

/** `exactSum(values) / values.length`; NaN for no values. */
export function exactMean(values: ArrayLike<number>): number {
  return values.length === 0 ? Number.NaN : exactSum(values) / values.length;
}
