import type { Estimate } from "@distdebug/schema";

/** Options of {@link formatEstimate}. */
export interface FormatEstimateOptions {
  /** Decimals on the 0-100 scale. Default 1. */
  digits?: number;
  /** Prefix positive numbers with `+` (for differences). Default false. */
  signed?: boolean;
}

function points(share: number, digits: number, signed: boolean): string {
  let text = (share * 100).toFixed(digits);
  if (/^-0(\.0*)?$/.test(text)) text = text.slice(1);
  return signed && !text.startsWith("-") && Number(text) !== 0 ? `+${text}` : text;
}

/**
 * A share (0-1) with its interval on the 0-100 scale: `72.6 [65.7, 79.3]`.
 *
 * @example
 * ```ts
 * formatEstimate({ mean: 0.726, low: 0.657, high: 0.793, se: 0.035, n: 120 }); // "72.6 [65.7, 79.3]"
 * formatEstimate({ mean: 0.031, low: -0.01, high: 0.07 }, { signed: true }); // "+3.1 [-1.0, +7.0]"
 * ```
 */
export function formatEstimate(
  estimate: Pick<Estimate, "mean" | "low" | "high">,
  options: FormatEstimateOptions = {},
): string {
  const digits = options.digits ?? 1;
  const signed = options.signed ?? false;
  return `${points(estimate.mean, digits, signed)} [${points(estimate.low, digits, signed)}, ${points(estimate.high, digits, signed)}]`;
}

/**
 * A share (0-1) on the 0-100 scale: `72.6`.
 *
 * @param digits - decimals; default 1.
 * @example
 * ```ts
 * formatPoints(0.7263); // "72.6"
 * ```
 */
export function formatPoints(share: number, digits = 1): string {
  return points(share, digits, false);
}

const UNITS: readonly [number, string][] = [
  [1e12, "T"],
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "K"],
];

/**
 * A token count in a few characters: `950`, `9.5K`, `130K`, `1.2M`. One decimal below 10
 * of a unit, none above; a value that rounds up to the next unit is shown in it.
 *
 * @example
 * ```ts
 * formatTokens(130_400); // "130K"
 * formatTokens(1_234_567); // "1.2M"
 * ```
 */
export function formatTokens(tokens: number): string {
  if (!Number.isFinite(tokens)) return String(tokens);
  const sign = tokens < 0 ? "-" : "";
  const value = Math.abs(tokens);
  if (Math.round(value) < 1000) return `${sign}${Math.round(value)}`;
  for (let u = UNITS.length - 1; u >= 0; u--) {
    const [size, unit] = UNITS[u]!;
    const scaled = value / size;
    const text = scaled < 9.95 ? scaled.toFixed(1) : Math.round(scaled).toFixed(0);
    if (Number(text) < 1000 || u === 0) return `${sign}${text}${unit}`;
  }
  return `${sign}${value}`;
}

/**
 * A cost in US dollars: `$0.42`, `$12.30`, `$1,234`; `n/a` for an unknown (null) cost.
 *
 * @example
 * ```ts
 * formatCostUsd(0.4213); // "$0.42"
 * formatCostUsd(null); // "n/a"
 * ```
 */
export function formatCostUsd(usd: number | null): string {
  if (usd === null || !Number.isFinite(usd)) return "n/a";
  if (Math.abs(usd) >= 1000) return `$${Math.round(usd).toLocaleString("en-US")}`;
  if (usd !== 0 && Math.abs(usd) < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(2)}`;
}
