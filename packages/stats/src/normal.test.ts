import { describe, expect, it } from "vitest";
import { loadNormal } from "../fixtures/load.js";
import { normalCdf, normalQuantile } from "./normal.js";

const reference = loadNormal();

/** |a - b| <= 1e-14 * max(1, |b|): absolute near 0, relative elsewhere. */
function close(actual: number, expected: number, tolerance = 1e-14): boolean {
  return Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected));
}

describe("normalCdf (Cody erfc)", () => {
  it("matches 50-digit mpmath and scipy.special.ndtr to 1e-14 on 376 points from -37.5 to 8.25", () => {
    const bad = reference.cdf.filter(
      (row) => !close(normalCdf(row.x), row.exact) || !close(normalCdf(row.x), row.scipy),
    );
    expect(bad).toEqual([]);
    expect(reference.cdf.length).toBeGreaterThan(300);
  });

  it("keeps relative accuracy in the lower tail (down to 1e-300)", () => {
    const tail = reference.cdf.filter((row) => row.x < -1 && row.exact > 0);
    const bad = tail.filter((row) => Math.abs(normalCdf(row.x) - row.exact) > 1e-13 * row.exact);
    expect(bad).toEqual([]);
  });

  it("handles infinities and NaN", () => {
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(Number.NaN)).toBeNaN();
  });
});

describe("normalQuantile (Wichura AS 241)", () => {
  it("matches 50-digit mpmath and scipy.special.ndtri to 1e-14 relative on 260 probabilities", () => {
    const bad = reference.quantile.filter(
      (row) => !close(normalQuantile(row.p), row.exact) || !close(normalQuantile(row.p), row.scipy),
    );
    expect(bad).toEqual([]);
    expect(reference.quantile.length).toBeGreaterThan(250);
  });

  it("inverts normalCdf", () => {
    for (const p of [1e-12, 0.001, 0.025, 0.3, 0.5, 0.8, 0.975])
      expect(close(normalCdf(normalQuantile(p)), p, 1e-13)).toBe(true);
  });

  it("returns infinities at 0 and 1 and NaN outside", () => {
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(-0.1)).toBeNaN();
    expect(normalQuantile(1.1)).toBeNaN();
  });
});
