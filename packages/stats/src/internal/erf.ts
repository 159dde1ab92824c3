// W. J. Cody, "Rational Chebyshev approximations for the error function",
// Math. Comp. 23 (1969) 631-637; the coefficients of Netlib SPECFUN CALERF, each written as
// the shortest decimal of the double nearest the published value.

const A = [
  3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694, 0.18577770618460315,
];
const B = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171];
const C = [
  0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769,
  1712.0476126340707, 2051.0783778260716, 1230.3393547979972, 2.1531153547440383e-8,
];
const D = [
  15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903, 3290.7992357334597,
  4362.619090143247, 3439.3676741437216, 1230.3393548037495,
];
const P = [
  0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275,
  0.0006587491615298378, 0.016315387137302097,
];
const Q = [
  2.568520192289822, 1.8729528499234604, 0.5279051029514285, 0.06051834131244132,
  0.0023352049762686918,
];
const ONE_OVER_SQRT_PI = 0.5641895835477563;
const X_BIG = 26.543;

/** erf(x) for |x| <= 0.46875. */
function erfSmall(x: number): number {
  const y = Math.abs(x);
  const ysq = y > 1.11e-16 ? y * y : 0;
  let num = A[4]! * ysq;
  let den = ysq;
  for (let i = 0; i < 3; i++) {
    num = (num + A[i]!) * ysq;
    den = (den + B[i]!) * ysq;
  }
  return (x * (num + A[3]!)) / (den + B[3]!);
}

/** exp(-y^2) computed as exp(-ysq^2) * exp(-del) with ysq = trunc(16y)/16, as CALERF does. */
function expMinusSquare(y: number): number {
  const ysq = Math.trunc(y * 16) / 16;
  const del = (y - ysq) * (y + ysq);
  return Math.exp(-ysq * ysq) * Math.exp(-del);
}

/** erfc(y) for y > 0.46875. */
function erfcLarge(y: number): number {
  return y >= X_BIG ? 0 : erfcScaled(y) * expMinusSquare(y);
}

/** exp(y^2) erfc(y) for y > 0.46875 (Cody's rational part, without the Gaussian factor). */
export function erfcScaled(y: number): number {
  if (y <= 4) {
    let num = C[8]! * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]!) * y;
      den = (den + D[i]!) * y;
    }
    return (num + C[7]!) / (den + D[7]!);
  }
  const ysq = 1 / (y * y);
  let num = P[5]! * ysq;
  let den = ysq;
  for (let i = 0; i < 4; i++) {
    num = (num + P[i]!) * ysq;
    den = (den + Q[i]!) * ysq;
  }
  const r = (ysq * (num + P[4]!)) / (den + Q[4]!);
  return (ONE_OVER_SQRT_PI - r) / y;
}

/** The error function. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const y = Math.abs(x);
  if (y <= 0.46875) return erfSmall(x);
  const value = 1 - erfcLarge(y);
  return x < 0 ? -value : value;
}

/** The complementary error function 1 - erf(x), accurate in the upper tail. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const y = Math.abs(x);
  if (y <= 0.46875) return 1 - erfSmall(x);
  const value = erfcLarge(y);
  return x < 0 ? 2 - value : value;
}
