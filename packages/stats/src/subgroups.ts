import { Summary } from "@distdebug/schema";
import { type IncidentRow, METRIC_NAMES, type MetricName } from "./aggregate.js";
import {
  bootstrapMean,
  type IntervalOptions,
  type MeanResult,
  stratifiedDifference,
} from "./bootstrap.js";
import { sharedResamplePlan } from "./resample-plan.js";

/** A subgroup facet (`system`, `language`, `category`, `reportNamesCausalMethod`, `usableStackTrace`, `multipleBlocks`). */
export type SubgroupFacet = Summary["subgroups"][number]["facet"];

/** The facets in their fixed order. */
export const SUBGROUP_FACETS: readonly SubgroupFacet[] =
  Summary.shape.subgroups.unwrap().element.shape.facet.options;

const TWO_VALUED = new Set<SubgroupFacet>([
  "reportNamesCausalMethod",
  "usableStackTrace",
  "multipleBlocks",
]);

/**
 * The groups an incident belongs to under a facet (several for a multi-language incident);
 * two-valued facets give `"true"` or `"false"`.
 *
 * @example
 * ```ts
 * groupsOf(row, "multipleBlocks"); // ["true"] when the incident has more than one gold block
 * ```
 */
export function groupsOf(row: IncidentRow, facet: SubgroupFacet): string[] {
  const incident = row.incident;
  switch (facet) {
    case "system":
      return [incident.system];
    case "language":
      return [...new Set(incident.languages)];
    case "category":
      return [incident.category];
    case "reportNamesCausalMethod":
      return [String(incident.clues.reportNamesCausalMethod)];
    case "usableStackTrace":
      return [String(incident.clues.usableStackTrace)];
    case "multipleBlocks":
      return [String(incident.goldBlocks > 1)];
  }
}

/** Options of {@link subgroupTables}. */
export interface SubgroupOptions extends IntervalOptions {
  seed: number;
  resamples: number;
  metrics?: readonly MetricName[];
}

/**
 * Per-group mean and CI with its n for every facet and metric, each group bootstrapped on
 * its own stream (`subgroup:<facet>:<group>`, so the same group is paired across
 * configurations); for two-valued facets, `true` minus `false` by stratified bootstrap.
 *
 * @example
 * ```ts
 * const { subgroups } = subgroupTables(aggregateAttempts(attempts, incidents).scored, { seed: 1, resamples: 10_000 });
 * ```
 */
export function subgroupTables(
  rows: readonly IncidentRow[],
  options: SubgroupOptions,
): Pick<Summary, "subgroups" | "subgroupDifferences"> {
  const metrics = options.metrics ?? METRIC_NAMES;
  const subgroups: Summary["subgroups"] = [];
  const subgroupDifferences: Summary["subgroupDifferences"] = [];
  for (const facet of SUBGROUP_FACETS) {
    const members = new Map<string, IncidentRow[]>();
    for (const row of rows) {
      if (!row.means) continue;
      for (const group of groupsOf(row, facet)) {
        const list = members.get(group) ?? [];
        list.push(row);
        members.set(group, list);
      }
    }
    const names = [...members.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const results = new Map<string, Map<MetricName, { values: number[]; result: MeanResult }>>();
    for (const group of names) {
      const groupRows = members.get(group) ?? [];
      const plan = sharedResamplePlan({
        size: groupRows.length,
        resamples: options.resamples,
        seed: options.seed,
        stream: `subgroup:${facet}:${group}`,
      });
      const byMetric = new Map<MetricName, { values: number[]; result: MeanResult }>();
      for (const metric of metrics) {
        const values = groupRows.map((row) => row.means?.[metric] ?? 0);
        const result = bootstrapMean(values, plan, options);
        byMetric.set(metric, { values, result });
        subgroups.push({ facet, group, metric, estimate: result.estimate });
      }
      results.set(group, byMetric);
    }
    if (!TWO_VALUED.has(facet)) continue;
    const yes = results.get("true");
    const no = results.get("false");
    if (!yes || !no) continue;
    for (const metric of metrics) {
      const a = yes.get(metric);
      const b = no.get(metric);
      if (!a || !b) continue;
      subgroupDifferences.push({
        facet,
        groups: ["true", "false"],
        metric,
        difference: stratifiedDifference(a.values, a.result, b.values, b.result, options),
      });
    }
  }
  return { subgroups, subgroupDifferences };
}
