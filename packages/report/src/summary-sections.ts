import type { Summary } from "@distdebug/schema";
import { errorMessage } from "@distdebug/schema";
import { compare, formatEstimate, formatPoints } from "@distdebug/stats";
import { type ForestRow, forestPlotSvg } from "./forest-plot.js";
import { escapeHtml } from "./internal/html.js";

type Facet = Summary["subgroups"][number]["facet"];

/** Headings of the subgroup facets, and the words for their `true`/`false` groups. */
const FACETS: Record<Facet, { title: string; yes?: string; no?: string }> = {
  reportNamesCausalMethod: {
    title: "Does the report name the causal method?",
    yes: "names the method",
    no: "does not name it",
  },
  usableStackTrace: {
    title: "Is there a usable stack trace?",
    yes: "usable stack trace",
    no: "no usable stack trace",
  },
  multipleBlocks: { title: "One or several gold blocks", yes: "several blocks", no: "one block" },
  system: { title: "Per system" },
  language: { title: "Per language" },
  category: { title: "Per fault category" },
};

/** The order facets are shown in. */
const FACET_ORDER: readonly Facet[] = [
  "reportNamesCausalMethod",
  "usableStackTrace",
  "multipleBlocks",
  "system",
  "language",
  "category",
];

/**
 * The fewest incidents a group (each side of a comparison, each subgroup row) needs before
 * the report shows a confidence interval or P(delta <= 0): below it a bootstrap over 1 to 4
 * incidents gives intervals such as [100.0, 100.0] that claim a certainty the data lack.
 */
export const MIN_GROUP_SIZE = 5;

/** The warning shown instead of an interval or a probability for `n` incidents. */
export function tooFewIncidents(n: number | readonly number[]): string {
  const sizes = typeof n === "number" ? `n = ${n}` : `n = ${n.join(" vs ")}`;
  return `too few incidents for a confidence interval or P(&#916; &le; 0) (${sizes}; at least ${MIN_GROUP_SIZE} per side)`;
}

/** A forest row that makes no interval claim below {@link MIN_GROUP_SIZE}: the mean alone. */
function guardedRow(row: ForestRow): ForestRow {
  if ((row.n ?? 0) >= MIN_GROUP_SIZE) return row;
  const { mean } = row.estimate;
  return {
    ...row,
    label: `${row.label} (too few for a CI)`,
    estimate: { mean, low: mean, high: mean },
  };
}

/**
 * The name shown for a subgroup: `true`/`false` of a two-valued facet in words, other groups
 * as they are.
 *
 * @example
 * ```ts
 * groupLabel("usableStackTrace", "false"); // "no usable stack trace"
 * ```
 */
export function groupLabel(facet: Facet, group: string): string {
  const words = FACETS[facet];
  if (group === "true" && words.yes) return words.yes;
  if (group === "false" && words.no) return words.no;
  return group;
}

/**
 * Subgroup panels of block coverage: per facet, a forest plot of every group of every
 * configuration with its n, and the stratified difference of two-valued facets.
 *
 * @example
 * ```ts
 * const html = subgroupPanelsHtml([summary]);
 * ```
 */
export function subgroupPanelsHtml(summaries: readonly Summary[]): string {
  const panels: string[] = [];
  for (const facet of FACET_ORDER) {
    const keyed: { group: string; order: number; row: ForestRow }[] = [];
    const differences: string[] = [];
    for (const [order, summary] of summaries.entries()) {
      for (const entry of summary.subgroups) {
        if (entry.facet !== facet || entry.metric !== "blockCoverage") continue;
        const group = groupLabel(facet, entry.group);
        keyed.push({
          group,
          order,
          row: guardedRow({
            label: summaries.length > 1 ? `${group}: ${summary.name}` : group,
            estimate: entry.estimate,
            n: entry.estimate.n,
          }),
        });
      }
      for (const entry of summary.subgroupDifferences) {
        if (entry.facet !== facet || entry.metric !== "blockCoverage") continue;
        const sizes = entry.groups.map(
          (group) =>
            summary.subgroups.find(
              (row) => row.facet === facet && row.group === group && row.metric === entry.metric,
            )?.estimate.n ?? 0,
        );
        const label = `${escapeHtml(summary.name)}: ${escapeHtml(groupLabel(facet, entry.groups[0]))} minus ${escapeHtml(groupLabel(facet, entry.groups[1]))}`;
        differences.push(
          Math.min(...sizes) < MIN_GROUP_SIZE
            ? `<li class="warning">${label}: ${tooFewIncidents(sizes)}</li>`
            : `<li>${label}: <span class="figure">${escapeHtml(formatEstimate(entry.difference, { signed: true }))}</span> points, P(&#916; &le; 0) = ${entry.difference.pAtMostZero.toFixed(3)}</li>`,
        );
      }
    }
    // Each group's configurations side by side, groups in name order.
    const rows = keyed
      .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : a.order - b.order))
      .map((item) => item.row);
    if (rows.length === 0) continue;
    const title = FACETS[facet].title;
    panels.push(
      `<section class="panel" data-facet="${facet}">`,
      `<h3>${escapeHtml(title)}</h3>`,
      forestPlotSvg({ title: `Block coverage: ${title.toLowerCase()}`, rows, sort: false }),
      differences.length > 0 ? `<ul class="differences">${differences.join("")}</ul>` : "",
      "</section>",
    );
  }
  if (panels.length === 0) return '<p class="empty">No subgroup figures in these summaries.</p>';
  return panels.join("\n");
}

/**
 * The localization gap per configuration (file coverage minus block coverage, paired over
 * incidents, with its CI) as a forest plot and a sentence per configuration.
 *
 * @example
 * ```ts
 * const html = localizationGapHtml([summary]);
 * ```
 */
export function localizationGapHtml(summaries: readonly Summary[]): string {
  const rows: ForestRow[] = [];
  const items: string[] = [];
  for (const summary of summaries) {
    const gap = summary.localizationGap;
    if (!gap) continue;
    rows.push({ label: summary.name, estimate: gap, n: gap.n });
    items.push(
      `<li data-config="${escapeHtml(summary.name)}">${escapeHtml(summary.name)}: file coverage ${formatPoints(summary.metrics.fileCoverage?.mean ?? 0)}, block coverage ${formatPoints(summary.metrics.blockCoverage?.mean ?? 0)}, gap <span class="figure">${escapeHtml(formatEstimate(gap))}</span> points</li>`,
    );
  }
  if (rows.length === 0) return '<p class="empty">No localization gap in these summaries.</p>';
  return [
    forestPlotSvg({ title: "Localization gap: file coverage minus block coverage", rows }),
    `<ul>${items.join("")}</ul>`,
  ].join("\n");
}

/**
 * Run-to-run variation per configuration: block coverage of each run, their SD, the pooled
 * within-incident SD and the share of variance due to run noise.
 *
 * @example
 * ```ts
 * const html = runToRunHtml([summary]);
 * ```
 */
export function runToRunHtml(summaries: readonly Summary[]): string {
  const rows = summaries.flatMap((summary) => {
    const variation = summary.runToRun?.blockCoverage;
    if (!variation) return [];
    const runs = variation.perRun.map((value) => formatPoints(value)).join(", ");
    return [
      `<tr data-config="${escapeHtml(summary.name)}"><th scope="row">${escapeHtml(summary.name)}</th><td>${runs}</td><td>${formatPoints(variation.sd)}</td><td>${formatPoints(variation.withinIncidentSd)}</td><td>${(variation.noiseShare * 100).toFixed(0)}%</td></tr>`,
    ];
  });
  if (rows.length === 0)
    return '<p class="empty">Run-to-run variation needs at least two runs per incident.</p>';
  return [
    '<table class="run-to-run">',
    '<thead><tr><th scope="col">configuration</th><th scope="col">block coverage per run</th><th scope="col">SD of runs</th><th scope="col">within-incident SD</th><th scope="col">variance from run noise</th></tr></thead>',
    `<tbody>${rows.join("\n")}</tbody>`,
    "</table>",
  ].join("\n");
}

/**
 * Paired comparisons of block coverage between configurations, on the incidents all of them
 * scored, with one shared resample plan: each difference with its CI and P(delta <= 0), and
 * each configuration's probability of ranking first. Needs two or more distinct names.
 *
 * @example
 * ```ts
 * const html = comparisonHtml([summaryA, summaryB]);
 * ```
 */
export function comparisonHtml(summaries: readonly Summary[]): string {
  const names = new Set(summaries.map((summary) => summary.name));
  if (summaries.length < 2 || names.size !== summaries.length)
    return '<p class="empty">Paired comparisons need two or more configurations with distinct names.</p>';
  let comparison: ReturnType<typeof compare>;
  try {
    const first = summaries[0]!.method;
    comparison = compare({
      configs: summaries,
      metrics: ["blockCoverage"],
      seed: first.seed,
      resamples: first.resamples,
    });
  } catch (error) {
    return `<p class="empty">No paired comparison: ${escapeHtml(errorMessage(error))}</p>`;
  }
  const small = comparison.incidents.length < MIN_GROUP_SIZE;
  const rows = comparison.pairs.map((pair) => {
    const head = `<tr><th scope="row">${escapeHtml(pair.a)} &minus; ${escapeHtml(pair.b)}</th>`;
    return small
      ? `${head}<td class="figure">${pair.difference.mean >= 0 ? "+" : ""}${escapeHtml(formatPoints(pair.difference.mean))}</td><td>n/a</td><td>${pair.difference.n}</td></tr>`
      : `${head}<td class="figure">${escapeHtml(formatEstimate(pair.difference, { signed: true }))}</td><td>${pair.difference.pAtMostZero.toFixed(3)}</td><td>${pair.difference.n}</td></tr>`;
  });
  const ranks = small ? [] : (comparison.ranks[0]?.configs ?? []);
  return [
    `<p class="muted">On the ${comparison.incidents.length} incidents every configuration scored${comparison.excludedIncidents.length > 0 ? ` (${comparison.excludedIncidents.length} left out)` : ""}.</p>`,
    small
      ? `<p class="warning">Differences only: ${tooFewIncidents(comparison.incidents.length)}.</p>`
      : "",
    '<table class="comparison"><thead><tr><th scope="col">block coverage difference</th><th scope="col">points [95% CI]</th><th scope="col">P(&#916; &le; 0)</th><th scope="col">n</th></tr></thead>',
    `<tbody>${rows.join("\n")}</tbody></table>`,
    ranks.length > 0
      ? `<ul class="ranks">${ranks.map((config) => `<li>${escapeHtml(config.name)}: P(best) ${(config.pBest * 100).toFixed(1)}%, expected rank ${config.expectedRank.toFixed(2)}</li>`).join("")}</ul>`
      : "",
  ].join("\n");
}
