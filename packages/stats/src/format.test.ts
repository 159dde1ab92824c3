import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCostUsd, formatEstimate, formatPoints, formatTokens } from "./format.js";
import { STATS_VERSION } from "./method.js";
import { quantileR7, quantilesR7Unsorted } from "./quantile.js";

describe("formatEstimate", () => {
  it("shows a share and its interval on the 0-100 scale with one decimal", () => {
    expect(formatEstimate({ mean: 0.726, low: 0.657, high: 0.793 })).toBe("72.6 [65.7, 79.3]");
    expect(formatEstimate({ mean: 1, low: 1, high: 1 })).toBe("100.0 [100.0, 100.0]");
    expect(formatEstimate({ mean: 0, low: -0.0001, high: 0.0004 })).toBe("0.0 [0.0, 0.0]");
    expect(formatEstimate({ mean: 0.72555, low: 0.6, high: 0.8 }, { digits: 2 })).toBe(
      "72.56 [60.00, 80.00]",
    );
  });

  it("signs differences on request", () => {
    expect(formatEstimate({ mean: 0.031, low: -0.01, high: 0.07 }, { signed: true })).toBe(
      "+3.1 [-1.0, +7.0]",
    );
    expect(formatPoints(0.7263)).toBe("72.6");
  });
});

describe("formatTokens", () => {
  it("abbreviates with K, M, B", () => {
    expect(formatTokens(0)).toBe("0");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(999.6)).toBe("1.0K");
    expect(formatTokens(9_540)).toBe("9.5K");
    expect(formatTokens(130_400)).toBe("130K");
    expect(formatTokens(999_600)).toBe("1.0M");
    expect(formatTokens(1_234_567)).toBe("1.2M");
    expect(formatTokens(45_600_000)).toBe("46M");
    expect(formatTokens(2_500_000_000)).toBe("2.5B");
  });

  it("formats costs, unknown ones as n/a", () => {
    expect(formatCostUsd(0.4213)).toBe("$0.42");
    expect(formatCostUsd(1234.5)).toBe("$1,235");
    expect(formatCostUsd(0.0042)).toBe("$0.0042");
    expect(formatCostUsd(null)).toBe("n/a");
  });
});

describe("quantileR7", () => {
  it("interpolates linearly between order statistics like numpy's default", () => {
    const sorted = Float64Array.of(1, 2, 3, 4);
    expect(quantileR7(sorted, 0.5)).toBe(2.5);
    expect(quantileR7(sorted, 0)).toBe(1);
    expect(quantileR7(sorted, 1)).toBe(4);
    expect(quantileR7(sorted, 0.025)).toBeCloseTo(1.075, 14);
    expect(quantileR7([], 0.5)).toBeNaN();
  });

  it("gives the same quantiles by selection on unsorted values as on sorted ones", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 30 }).map((k) => k / 7),
          { minLength: 1, maxLength: 300 },
        ),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, p, q) => {
          const levels = [Math.min(p, q), Math.max(p, q)];
          const sorted = Float64Array.from(values).sort();
          const expected = levels.map((level) => quantileR7(sorted, level));
          expect(quantilesR7Unsorted(Float64Array.from(values), levels)).toEqual(expected);
        },
      ),
    );
  });
});

it("records the version of package.json", () => {
  const manifest = JSON.parse(
    readFileSync(new URL("../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  expect(STATS_VERSION).toBe(manifest.version);
});
