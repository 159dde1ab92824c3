import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactMean, exactSum } from "./exact-sum.js";

describe("exactSum", () => {
  it("is correctly rounded where naive summation is not", () => {
    expect(exactSum([1e100, 1, -1e100])).toBe(1);
    expect(exactSum(Array.from({ length: 10 }, () => 0.1))).toBe(1);
    expect(exactSum([0.1, 0.2, 0.3])).toBe(0.6);
    expect(exactSum([])).toBe(0);
    expect(exactMean([1 / 3, 1 / 3, 1 / 3])).toBe(1 / 3);
  });

  it("does not depend on the order of the values", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        (values, shift) => {
          const rotated = values.map((_, i) => values[(i + shift) % values.length]!);
          return (
            Object.is(exactSum(values), exactSum(rotated)) &&
            Object.is(exactSum(values), exactSum([...values].reverse()))
          );
        },
      ),
    );
  });
});
