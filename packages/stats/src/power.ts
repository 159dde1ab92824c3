import { DistDebugError } from "@distdebug/schema";
import { normalQuantile } from "./normal.js";

/** Options of {@link powerAnalysis}. */
export interface PowerOptions {
  /** SD of the per-incident differences (paired) between two configurations. */
  sd: number;
  /** Incidents available now, for the minimum detectable effect. */
  n?: number;
  /** A difference to detect (0-1 scale), for the incidents needed. */
  delta?: number;
  /** Two-sided significance level. Default 0.05. */
  alpha?: number;
  /** Power. Default 0.8. */
  power?: number;
}

/** Result of {@link powerAnalysis}. */
export interface PowerResult {
  /** Incidents needed to detect `delta` (normal approximation), or null without `delta`. */
  incidentsNeeded: number | null;
  /** Smallest difference detectable with `n` incidents, or null without `n`. */
  minimumDetectableEffect: number | null;
}

/**
 * Power of a paired comparison by the normal approximation: with
 * `z = Φ⁻¹(1 - alpha/2) + Φ⁻¹(power)`, incidents needed = ceil((z sd / delta)²) and
 * minimum detectable effect = z sd / sqrt(n).
 *
 * @example
 * ```ts
 * powerAnalysis({ sd: 0.2, delta: 0.05 }).incidentsNeeded; // 126
 * powerAnalysis({ sd: 0.2, n: 120 }).minimumDetectableEffect; // 0.0511...
 * ```
 */
export function powerAnalysis(options: PowerOptions): PowerResult {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const check = (path: string, ok: boolean, found: unknown) => {
    if (!ok)
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${path}: expected ${path === "sd" ? "a non-negative number" : path === "n" ? "a positive integer" : "a value strictly between 0 and 1"}, found ${found}`,
        data: { path, found },
      });
  };
  check("sd", Number.isFinite(options.sd) && options.sd >= 0, options.sd);
  check("alpha", alpha > 0 && alpha < 1, alpha);
  check("power", power > 0 && power < 1, power);
  if (options.n !== undefined) check("n", Number.isInteger(options.n) && options.n > 0, options.n);
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  let incidentsNeeded: number | null = null;
  if (options.delta !== undefined && options.delta !== 0 && Number.isFinite(options.delta))
    incidentsNeeded = Math.max(1, Math.ceil(((z * options.sd) / Math.abs(options.delta)) ** 2));
  const minimumDetectableEffect =
    options.n === undefined ? null : (z * options.sd) / Math.sqrt(options.n);
  return { incidentsNeeded, minimumDetectableEffect };
}
