import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AttemptRecord, IncidentRecord } from "./aggregate.js";
import { bootstrapMean, type IntervalMethod } from "./bootstrap.js";
import { createResamplePlan } from "./resample-plan.js";
import { summarize } from "./summarize.js";

/**
 * Incident values: ratios of counts, as scores are (covered blocks over gold blocks, averaged
 * over attempts), with denominators up to 10,000.
 */
const share = fc
  .integer({ min: 1, max: 10_000 })
  .chain((denominator) => fc.integer({ min: 0, max: denominator }).map((k) => k / denominator));
/** Non-degenerate: the values spread by more than rounding noise (the code treats 1e-12 as a tie). */
const nonDegenerate = fc
  .array(share, { minLength: 2, maxLength: 60 })
  .filter((values) => Math.max(...values) - Math.min(...values) > 1e-9);
const methods: IntervalMethod[] = ["percentile", "bca"];

describe("bootstrap interval properties", () => {
  it.each(methods)("%s: the interval contains the estimate for non-degenerate data", (method) => {
    fc.assert(
      fc.property(nonDegenerate, fc.integer({ min: 0, max: 0xffffffff }), (values, seed) => {
        const plan = createResamplePlan({ size: values.length, resamples: 400, seed });
        const { estimate } = bootstrapMean(values, plan, { method });
        return (
          estimate.low <= estimate.mean &&
          estimate.mean <= estimate.high &&
          estimate.low < estimate.high
        );
      }),
    );
  });

  it.each(methods)(
    "%s: adding a constant to every score shifts the interval by that constant",
    (method) => {
      fc.assert(
        fc.property(
          nonDegenerate,
          fc.double({ min: -5, max: 5, noNaN: true }),
          fc.integer({ min: 0, max: 0xffffffff }),
          (values, shift, seed) => {
            const plan = createResamplePlan({ size: values.length, resamples: 400, seed });
            const base = bootstrapMean(values, plan, { method }).estimate;
            const moved = bootstrapMean(
              values.map((value) => value + shift),
              plan,
              { method },
            ).estimate;
            const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9;
            return (
              close(moved.mean, base.mean + shift) &&
              close(moved.low, base.low + shift) &&
              close(moved.high, base.high + shift) &&
              close(moved.se, base.se)
            );
          },
        ),
      );
    },
  );
});

const usage = { inputTokens: 100, outputTokens: 10, cachedTokens: 0, calls: 1, costUsd: null };
const incidentAttempts = fc.array(
  fc.record({
    status: fc.constantFrom(
      "succeeded",
      "succeeded",
      "succeeded",
      "agent-error",
      "limit-exceeded",
      "infra-error",
    ),
    scores: fc.tuple(share, share, share, share),
  }),
  { minLength: 1, maxLength: 4 },
);

describe("aggregation properties", () => {
  it("equal-weight means do not change when an incident's attempts are reordered", () => {
    fc.assert(
      fc.property(
        fc.array(incidentAttempts, { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 0, max: 1000 }),
        (perIncident, rotation) => {
          const incidents: IncidentRecord[] = perIncident.map((_, i) => ({
            id: `sys-${i}`,
            system: "sys",
            languages: ["go"],
            category: "logic",
            clues: { reportNamesCausalMethod: i % 2 === 0, usableStackTrace: false },
            goldBlocks: 1 + (i % 3),
          }));
          const build = (reorder: boolean): AttemptRecord[] =>
            perIncident.flatMap((list, i) => {
              const order = list.map((_, k) => (reorder ? (k + rotation + i) % list.length : k));
              const records = order.map((from, k) => {
                const entry = list[from]!;
                const [blockCoverage, blockPrecision, fileCoverage, linePrecision] = entry.scores;
                return {
                  incidentId: `sys-${i}`,
                  attempt: k + 1,
                  status: entry.status,
                  usage,
                  metrics: { blockCoverage, blockPrecision, fileCoverage, linePrecision },
                } satisfies AttemptRecord;
              });
              return reorder ? records.reverse() : records;
            });
          const options = {
            name: "p",
            incidents,
            attemptsPerIncident: 4,
            resamples: 200,
            seed: 9,
            subgroups: false,
          };
          const a = summarize({ ...options, attempts: build(false) });
          const b = summarize({ ...options, attempts: build(true) });
          expect(b.metrics).toEqual(a.metrics);
          expect(b.incidents).toEqual(a.incidents);
          expect(b.localizationGap).toEqual(a.localizationGap);
        },
      ),
      { numRuns: 60 },
    );
  });
});
