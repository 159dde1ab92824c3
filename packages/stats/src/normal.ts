import { erf, erfcScaled } from "./internal/erf.js";

/**
 * The standard normal CDF Φ(x), accurate to about 1e-16 relative (Cody's rational erf/erfc
 * approximations; the lower tail through erfc, so tiny probabilities keep their digits).
 *
 * @param x - any number; `-Infinity` gives 0, `Infinity` gives 1, NaN gives NaN.
 * @example
 * ```ts
 * normalCdf(1.959963984540054); // 0.975
 * ```
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const z = x * Math.SQRT1_2;
  if (Math.abs(z) < Math.SQRT1_2) return 0.5 + 0.5 * erf(z);
  // erfc(|z|) = erfcScaled(|z|) exp(-x^2 / 2); the Gaussian factor is taken from x itself
  // (split at a multiple of 1/16 as CALERF does), not from the rounded z, so the lower tail
  // keeps its relative accuracy.
  const y = Math.abs(x);
  if (y >= 38.5) return x > 0 ? 1 : 0;
  const split = Math.trunc(y * 16) / 16;
  const gauss = Math.exp((-split * split) / 2) * Math.exp((-(y - split) * (y + split)) / 2);
  const tail = 0.5 * erfcScaled(Math.abs(z)) * gauss;
  return x > 0 ? 1 - tail : tail;
}

// Wichura (1988), Algorithm AS 241 (PPND16), Applied Statistics 37(3) 477-484.
const AS241_A = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987,
  67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const AS241_B = [
  1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
  28729.085735721943, 5226.495278852854,
];
const AS241_C = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684,
  0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
];
const AS241_D = [
  1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008,
  0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-9,
];
const AS241_E = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487,
  0.026532189526576124, 0.0012426609473880784, 0.000027115555687434876, 2.0103343992922881e-7,
];
const AS241_F = [
  1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133,
  0.000018463183175100548, 1.421511758316446e-7, 2.0442631033899397e-15,
];

/** Horner evaluation of c[0] + c[1] r + ... + c[7] r^7. */
function poly(c: number[], r: number): number {
  let value = c[7]!;
  for (let i = 6; i >= 0; i--) value = value * r + c[i]!;
  return value;
}

/**
 * The standard normal quantile Φ⁻¹(p) (Wichura's AS 241), accurate to about 1e-16 relative.
 *
 * @param p - a probability; 0 gives `-Infinity`, 1 gives `Infinity`, outside [0, 1] gives NaN.
 * @example
 * ```ts
 * normalQuantile(0.975); // 1.9599639845400536
 * ```
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * poly(AS241_A, r)) / poly(AS241_B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let value: number;
  if (r <= 5) {
    r -= 1.6;
    value = poly(AS241_C, r) / poly(AS241_D, r);
  } else {
    r -= 5;
    value = poly(AS241_E, r) / poly(AS241_F, r);
  }
  return q < 0 ? -value : value;
}
