import { z } from "zod";
import { formatTag } from "./common.js";

/** How an interval was computed; recorded beside every figure. */
export const StatsMethod = z.object({
  seed: z.number().int(),
  resamples: z.number().int().min(1),
  method: z.enum(["percentile", "bca"]),
  rng: z.string(),
  quantile: z.string(),
  confidence: z.number().gt(0).lt(1),
  version: z.string(),
});
/** How an interval was computed. */
export type StatsMethod = z.infer<typeof StatsMethod>;

/** A mean with its confidence interval and analytic clustered standard error (0-1 scale). */
export const Estimate = z.object({
  mean: z.number(),
  low: z.number(),
  high: z.number(),
  se: z.number().min(0),
  n: z.number().int().min(0),
});
/** A mean with its confidence interval. */
export type Estimate = z.infer<typeof Estimate>;

/** `summary.json`: the statistics of one results folder. */
export const Summary = z.object({
  format: formatTag("summary", 1),
  name: z.string(),
  method: StatsMethod,
  counts: z.object({
    incidents: z.number().int().min(0),
    attempts: z.number().int().min(0),
    failedAttempts: z.number().int().min(0),
    infraErrors: z.number().int().min(0),
    missingAttempts: z.number().int().min(0),
  }),
  /** False while infra errors or missing attempts remain. */
  complete: z.boolean(),
  metrics: z.record(z.string(), Estimate),
  usage: z.object({
    tokensPerRun: z.number().min(0),
    inputTokensPerRun: z.number().min(0),
    outputTokensPerRun: z.number().min(0),
    costPerRunUsd: z.number().min(0).nullable(),
  }),
  localizationGap: Estimate.optional(),
  subgroups: z
    .array(
      z.object({
        facet: z.string(),
        group: z.string(),
        metric: z.string(),
        estimate: Estimate,
      }),
    )
    .default([]),
  runToRun: z
    .object({
      perRun: z.array(z.number()),
      sd: z.number().min(0),
      withinIncidentSd: z.number().min(0),
      noiseShare: z.number().min(0).max(1),
    })
    .optional(),
  incidents: z.array(
    z.object({
      id: z.string(),
      attempts: z.number().int().min(0),
      failed: z.number().int().min(0),
      metrics: z.record(z.string(), z.number()),
    }),
  ),
  missing: z
    .array(z.object({ incidentId: z.string(), attempt: z.number().int().min(1) }))
    .default([]),
});
/** `summary.json`. */
export type Summary = z.infer<typeof Summary>;
