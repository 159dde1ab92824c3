import { type DiagnosisScores, SearchOutcome, type Summary } from "@distdebug/schema";
import { compare, formatEstimate, formatPoints, formatTokens } from "@distdebug/stats";
import { escapeHtml } from "./internal/html.js";
import type { LoadedResults } from "./load-results.js";

/** The colour and the words of each outcome class (the legend and docs/guide/metrics.md agree). */
export const SEARCH_OUTCOME_LEGEND: Readonly<
  Record<SearchOutcome, { color: string; label: string; meaning: string }>
> = {
  named: { color: "#2e8b3a", label: "named", meaning: "the diagnosis reached the block" },
  "shown-not-named": {
    color: "#e3a21a",
    label: "shown, not named",
    meaning:
      "half or more of its significant rows appeared in one output, and the diagnosis missed it",
  },
  "file-only": {
    color: "#9ab7d8",
    label: "file only",
    meaning:
      "its file appeared (one of its blocks, or a command naming the file printed its rows), the block did not",
  },
  "never-shown": {
    color: "#c0392b",
    label: "never shown",
    meaning: "neither the block nor its file appeared",
  },
  unknown: {
    color: "#c8ccd2",
    label: "unknown",
    meaning: "the attempt has no observations (no trajectory, or no command output) to tell",
  },
};

const BAR_WIDTH = 520;

/** One configuration's stacked bar of the outcome shares (0-100 scale, every class labeled). */
function stackedBarSvg(search: NonNullable<Summary["search"]>): string {
  let x = 0;
  const parts = SearchOutcome.options.map((outcome) => {
    const share = search.shares[outcome].mean;
    const width = Math.max(0, share * BAR_WIDTH);
    const { color, label } = SEARCH_OUTCOME_LEGEND[outcome];
    const rect = `<rect x="${x.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="22" fill="${color}" data-outcome="${outcome}"><title>${escapeHtml(`${label}: ${formatPoints(share)}`)}</title></rect>`;
    x += width;
    return rect;
  });
  return `<svg class="search-bar" role="img" aria-label="share of gold blocks per search outcome" width="${BAR_WIDTH}" height="22" viewBox="0 0 ${BAR_WIDTH} 22">${parts.join("")}</svg>`;
}

/** Bins of turns for the distribution of steps to the first causal block. */
const STEP_BINS: readonly [number, number][] = [
  [1, 1],
  [2, 2],
  [3, 4],
  [5, 8],
  [9, 16],
  [17, 32],
  [33, 64],
  [65, Number.POSITIVE_INFINITY],
];

function binLabel([low, high]: [number, number]): string {
  if (low === high) return String(low);
  return high === Number.POSITIVE_INFINITY ? `${low}+` : `${low}-${high}`;
}

/** The distribution of turns to the first causal block over a configuration's observed attempts. */
function stepsHistogramHtml(attempts: readonly { scores?: DiagnosisScores }[]): string {
  const observed = attempts.flatMap((attempt) =>
    attempt.scores?.search?.observed ? [attempt.scores.search] : [],
  );
  if (observed.length === 0) return '<p class="empty">No attempt with observations.</p>';
  const counts = STEP_BINS.map(() => 0);
  let never = 0;
  for (const search of observed) {
    const step = search.firstCausalBlockStep;
    if (step === null) never += 1;
    else counts[STEP_BINS.findIndex(([low, high]) => step >= low && step <= high)]! += 1;
  }
  const rows = [
    ...STEP_BINS.map((bin, index) => [binLabel(bin), counts[index] ?? 0] as const),
    ["never", never] as const,
  ];
  const most = Math.max(1, ...rows.map(([, count]) => count));
  return `<table class="search-steps"><thead><tr><th scope="col">turns to the first causal block</th><th scope="col">attempts</th><th scope="col"></th></tr></thead><tbody>${rows
    .map(
      ([label, count]) =>
        `<tr><th scope="row">${label}</th><td>${count}</td><td style="text-align:left"><span style="display:inline-block;height:10px;background:#e3a21a;width:${Math.round((count / most) * 200)}px"></span></td></tr>`,
    )
    .join("")}</tbody></table>`;
}

function costLine(
  name: string,
  cost: NonNullable<Summary["search"]>["toFirstCausalBlock"],
): string {
  if (!cost.steps) return `<li>${name}: reached by no attempt</li>`;
  const tokens = cost.tokens
    ? `; tokens median ${formatTokens(cost.tokens.median)} [${formatTokens(cost.tokens.q1)}, ${formatTokens(cost.tokens.q3)}]`
    : "";
  return `<li>${name}: ${cost.attempts} attempt${cost.attempts === 1 ? "" : "s"}; turns median ${cost.steps.median} [${cost.steps.q1}, ${cost.steps.q3}]${tokens}</li>`;
}

/** The legend of the outcome classes, shared by the section and the attempt pages. */
export function searchLegendHtml(): string {
  return `<ul class="search-legend">${SearchOutcome.options
    .map((outcome) => {
      const { color, label, meaning } = SEARCH_OUTCOME_LEGEND[outcome];
      return `<li><span class="swatch" style="background:${color}"></span><b>${label}</b>: ${escapeHtml(meaning)}</li>`;
    })
    .join("")}</ul>`;
}

/** Paired differences in the shown-not-named share (configurations that all have search paths). */
function shownNotNamedHtml(summaries: readonly Summary[]): string {
  const withSearch = summaries.filter((summary) => summary.search);
  if (withSearch.length < 2) return "";
  const first = withSearch[0]!;
  const comparison = compare({
    configs: withSearch,
    seed: first.method.seed,
    resamples: first.method.resamples,
    method: first.method.method,
    metrics: ["blockCoverage"],
  });
  const items = (comparison.shownNotNamed ?? []).map(
    (pair) =>
      `<li>${escapeHtml(pair.a)} &minus; ${escapeHtml(pair.b)}: <span class="figure">${escapeHtml(formatEstimate(pair.difference))}</span> <span class="muted">P(&Delta; &le; 0) = ${pair.difference.pAtMostZero.toFixed(3)}</span></li>`,
  );
  return `<h3>Shown, not named: paired differences</h3><ul class="differences">${items.join("")}</ul>`;
}

/**
 * The "Search path" section of the report index: per configuration, a stacked bar of the share of
 * gold blocks per outcome class (named, shown not named, file only, never shown, unknown) with
 * confidence intervals, the distribution of turns to the first causal block, and the cost
 * (turns, tokens) to the first causal file and block; with two or more configurations, the
 * paired differences in the shown-not-named share.
 */
export function searchPathSectionHtml(results: readonly LoadedResults[]): string {
  const withSearch = results.filter((result) => result.summary.search);
  if (withSearch.length === 0)
    return '<p class="empty">No search paths: these results were scored without trajectories (an older harness); rescore them with <code>distdebug score</code>.</p>';
  const panels = withSearch.map((result) => {
    const search = result.summary.search!;
    const shares = SearchOutcome.options
      .map(
        (outcome) =>
          `<tr><th scope="row"><span class="swatch" style="background:${SEARCH_OUTCOME_LEGEND[outcome].color}"></span>${SEARCH_OUTCOME_LEGEND[outcome].label}</th><td data-outcome="${outcome}">${escapeHtml(formatEstimate(search.shares[outcome]))}</td></tr>`,
      )
      .join("");
    return [
      `<div class="search-panel" data-config="${escapeHtml(result.name)}">`,
      `<h3>${escapeHtml(result.name)}</h3>`,
      stackedBarSvg(search),
      `<table class="search-shares"><tbody>${shares}</tbody></table>`,
      `<ul class="search-cost">${costLine("first causal file", search.toFirstCausalFile)}${costLine("first causal block", search.toFirstCausalBlock)}</ul>`,
      `<p class="muted">${search.observedAttempts} counted attempt${search.observedAttempts === 1 ? "" : "s"} with observations.</p>`,
      stepsHistogramHtml(result.attempts),
      "</div>",
    ].join("\n");
  });
  return [
    '<p class="muted">Share of gold blocks by what the agent saw (0-100, incident bootstrap CIs). A block is shown when at least half of its significant rows appeared in one command output (blank space and line-number prefixes ignored).</p>',
    searchLegendHtml(),
    ...panels,
    shownNotNamedHtml(withSearch.map((result) => result.summary)),
  ].join("\n");
}
