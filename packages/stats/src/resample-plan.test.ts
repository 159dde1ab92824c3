import { DistDebugError } from "@distdebug/schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadRng } from "../fixtures/load.js";
import { fnv1a32, splitmix32, Xoshiro128 } from "./internal/rng.js";
import { createResamplePlan } from "./resample-plan.js";

const reference = loadRng();

describe("the PRNG (xoshiro128** seeded by splitmix32)", () => {
  it("reproduces the outputs of the independent Python implementation", () => {
    for (const [seed, vectors] of Object.entries(reference.vectors)) {
      const mix = splitmix32(Number(seed));
      expect(vectors.splitmix32.map(() => mix())).toEqual(vectors.splitmix32);
      const random = new Xoshiro128(Number(seed));
      expect(vectors.xoshiro128.map(() => random.next())).toEqual(vectors.xoshiro128);
    }
    for (const [text, hash] of Object.entries(reference.fnv1a32)) expect(fnv1a32(text)).toBe(hash);
  });

  it("draws indices in range, and every index of a small range", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 1, max: 2 ** 32 }),
        (seed, n) => {
          const random = new Xoshiro128(seed);
          for (let k = 0; k < 20; k++) {
            const index = random.index(n);
            if (!(Number.isInteger(index) && index >= 0 && index < n)) return false;
          }
          return true;
        },
      ),
    );
    const random = new Xoshiro128(3);
    const seen = new Set<number>();
    for (let k = 0; k < 500; k++) seen.add(random.index(7));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe("createResamplePlan", () => {
  it("is replicate-outer, incident-inner, and matches the Python plan", () => {
    const plan = createResamplePlan({ size: 120, resamples: 3, seed: 1 });
    expect(Array.from(plan.indices)).toEqual(reference.plan120.flat());
    const stream = createResamplePlan({
      size: 7,
      resamples: 2,
      seed: 7,
      stream: "subgroup:system:etcd",
    });
    expect(Array.from(stream.indices)).toEqual(reference.plan7Stream.flat());
  });

  it("is a prefix-stable stream: more resamples extend the same draws", () => {
    const short = createResamplePlan({ size: 30, resamples: 10, seed: 9 });
    const long = createResamplePlan({ size: 30, resamples: 20, seed: 9 });
    expect(Array.from(long.indices.subarray(0, 300))).toEqual(Array.from(short.indices));
  });

  it("differs between seeds and streams", () => {
    const a = createResamplePlan({ size: 50, resamples: 4, seed: 1 });
    const b = createResamplePlan({ size: 50, resamples: 4, seed: 2 });
    const c = createResamplePlan({ size: 50, resamples: 4, seed: 1, stream: "x" });
    expect(Array.from(a.indices)).not.toEqual(Array.from(b.indices));
    expect(Array.from(a.indices)).not.toEqual(Array.from(c.indices));
  });

  it("rejects bad seeds and sizes with INVALID_ARGUMENT", () => {
    for (const options of [
      { size: 3, seed: -1 },
      { size: 3, seed: 1.5 },
      { size: 3, seed: 2 ** 32 },
      { size: 0 },
      { size: 3, resamples: 0 },
    ]) {
      try {
        createResamplePlan(options);
        expect.unreachable();
      } catch (error) {
        expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_ARGUMENT");
      }
    }
  });
});
