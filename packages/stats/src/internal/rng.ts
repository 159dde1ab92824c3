/** The generator's name as recorded in every result's method metadata. */
export const RNG_NAME = "xoshiro128** seeded by splitmix32; indices by rejection sampling";

/** splitmix32: the 32-bit splitmix variant (golden-ratio increment, Wellons' mixer). */
export function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return (z ^ (z >>> 15)) >>> 0;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** xoshiro128** (Blackman and Vigna), state seeded by four splitmix32 outputs. */
export class Xoshiro128 {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    const mix = splitmix32(seed);
    this.s0 = mix() | 0;
    this.s1 = mix() | 0;
    this.s2 = mix() | 0;
    this.s3 = mix() | 0;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** The next unsigned 32-bit output. */
  next(): number {
    const s1 = this.s1;
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /**
   * A uniform integer in [0, n), 1 <= n <= 2^32: draws below the largest multiple of n
   * that fits in 32 bits are reduced modulo n; the others are rejected and redrawn.
   */
  index(n: number): number {
    const limit = 0x100000000 - (0x100000000 % n);
    for (;;) {
      const x = this.next();
      if (x < limit) return x % n;
    }
  }
}

/**
 * Fills `out` with uniform indices in [0, n) exactly as repeated {@link Xoshiro128.index}
 * calls would, with the generator state in locals (the hot loop of every resample plan).
 */
export function fillIndices(seed: number, n: number, out: Uint32Array | Uint16Array): void {
  const mix = splitmix32(seed);
  let s0 = mix() | 0;
  let s1 = mix() | 0;
  let s2 = mix() | 0;
  let s3 = mix() | 0;
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  const limit = 0x100000000 - (0x100000000 % n);
  for (let k = 0; k < out.length; ) {
    const product = Math.imul(s1, 5);
    const x = Math.imul((product << 7) | (product >>> 25), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = (s3 << 11) | (s3 >>> 21);
    if (x < limit) out[k++] = x - Math.floor(x / n) * n;
  }
}

/** FNV-1a (32-bit) of a string's UTF-16 code units; names independent resample streams. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
