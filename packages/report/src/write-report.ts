import { join } from "node:path";
import { writeFileAtomic } from "@distdebug/schema";
import { formatPoints } from "@distdebug/stats";
import { forestPlotSvg } from "./forest-plot.js";
import { attemptPageBody } from "./internal/attempt-page.js";
import { escapeHtml, htmlPage, slug } from "./internal/html.js";
import { attemptsByIncident, attemptsRowId } from "./internal/incident-rows.js";
import { describeIncident, incidentsSectionHtml } from "./internal/incidents-section.js";
import { REPORT_CSS } from "./internal/style.js";
import { formatLeaderboard, rankSummaries } from "./leaderboard.js";
import type { LoadedAttempt, LoadedResults } from "./load-results.js";
import type { ReportIncident } from "./report-incident.js";
import { searchPathSectionHtml } from "./search-path-section.js";
import type { ReportSources } from "./sources.js";
import {
  comparisonHtml,
  localizationGapHtml,
  runToRunHtml,
  subgroupPanelsHtml,
} from "./summary-sections.js";

/** Events of {@link renderReport} and {@link writeReport}. */
export type ReportEvent =
  | { type: "page-render"; path: string }
  | { type: "report-write"; dir: string; files: number };

/** Options of {@link renderReport}. */
export interface RenderReportOptions {
  /** One or more results folders read with `loadResults`. */
  results: readonly LoadedResults[];
  /** Source text and gold for the code views; without it the code is not shown. */
  sources?: ReportSources;
  /** Page title. Default `DistDebug report`. */
  title?: string;
  signal?: AbortSignal;
  onEvent?: (event: ReportEvent) => void;
}

/** A rendered report: relative file path to content, `index.html` first. */
export type RenderedReport = Map<string, string>;

function attemptPath(configSlug: string, attempt: LoadedAttempt): string {
  return `attempts/${configSlug}/${slug(attempt.incidentId)}/attempt-${attempt.attempt}.html`;
}

function attemptsTable(configSlug: string, results: LoadedResults): string {
  const byIncident = attemptsByIncident(results);
  const columns = Math.max(0, ...[...byIncident.values()].map((list) => list.at(-1)?.attempt ?? 0));
  const incidentMeans = new Map(
    results.summary.incidents.map((incident) => [incident.id, incident]),
  );
  const head = [
    '<th scope="col">incident</th>',
    '<th scope="col">mean block coverage</th>',
    ...Array.from({ length: columns }, (_, index) => `<th scope="col">attempt ${index + 1}</th>`),
  ].join("");
  const rows = [...byIncident.entries()].map(([incidentId, attempts]) => {
    const mean = incidentMeans.get(incidentId)?.metrics?.blockCoverage;
    const cells = Array.from({ length: columns }, (_, index) => {
      const attempt = attempts.find((candidate) => candidate.attempt === index + 1);
      if (!attempt) return "<td>-</td>";
      const status = attempt.record?.status ?? "unknown";
      const coverage = attempt.scores?.metrics.blockCoverage;
      const label =
        `${coverage === undefined ? "-" : formatPoints(coverage)} ${status === "succeeded" ? "" : status}`.trim();
      return `<td class="status-${status}"><a class="attempt-link" href="${escapeHtml(attemptPath(configSlug, attempt))}" data-incident="${escapeHtml(incidentId)}" data-attempt="${attempt.attempt}">${escapeHtml(label)}</a></td>`;
    });
    return `<tr id="${escapeHtml(attemptsRowId(configSlug, incidentId))}"><th scope="row">${escapeHtml(incidentId)}</th><td>${mean === undefined ? "-" : formatPoints(mean)}</td>${cells.join("")}</tr>`;
  });
  return `<table class="attempts" data-config="${escapeHtml(results.name)}"><thead><tr>${head}</tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

/**
 * Renders the static HTML report of one or more results folders, without writing: the index
 * (leaderboard, the per-incident table sortable by each column, forest plot of block coverage with 95% CI whiskers, localization gap,
 * subgroup panels with n, run-to-run variation, the attempts of each configuration) and one
 * page per attempt (the incident's title, diagnosis beside the gold blocks on the source code,
 * hits and misses highlighted, the report and artifacts the agent saw, and the trajectory:
 * steps, commands, outputs, token use). No scripts and no
 * remote resources: every page opens from `file://` with no network.
 *
 * @example
 * ```ts
 * const files = await renderReport({ results: [await loadResults("results/baseline")] });
 * files.get("index.html");
 * ```
 */
export async function renderReport(options: RenderReportOptions): Promise<RenderedReport> {
  const files: RenderedReport = new Map();
  const title = options.title ?? "DistDebug report";
  const summaries = options.results.map((results) => results.summary);
  const slugs = new Map<LoadedResults, string>();
  const used = new Set<string>();
  for (const results of options.results) {
    let candidate = slug(results.name);
    for (let suffix = 2; used.has(candidate); suffix++)
      candidate = `${slug(results.name)}-${suffix}`;
    used.add(candidate);
    slugs.set(results, candidate);
  }
  const ranked = rankSummaries(summaries);
  const links = ranked.map((summary) => {
    const results = options.results.find((candidate) => candidate.summary === summary);
    return results ? `#config-${slugs.get(results)}` : undefined;
  });
  const method = summaries[0]?.method;
  const sections = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="muted">${summaries.length} configuration${summaries.length === 1 ? "" : "s"}. Figures on a 0-100 scale; brackets are ${method ? `${Math.round(method.confidence * 100)}%` : "95%"} confidence intervals from an incident bootstrap${method ? ` (${method.method}, B=${method.resamples}, seed ${method.seed})` : ""}.</p>`,
    '<h2 id="leaderboard">Leaderboard</h2>',
    formatLeaderboard(summaries, { format: "html", links }),
    ...summaries
      .filter((summary) => !summary.complete)
      .map(
        (summary) =>
          `<p class="problems">${escapeHtml(summary.name)} is incomplete: ${summary.counts.infraErrors} infra errors, ${summary.counts.interrupted} interrupted, ${summary.counts.missingAttempts} missing attempts.</p>`,
      ),
    await incidentsSectionHtml(options.results, slugs, options.sources),
    '<h2 id="block-coverage">Block coverage</h2>',
    forestPlotSvg({
      title: "Block coverage with 95% CI",
      rows: summaries.map((summary) => ({
        label: summary.name,
        estimate: summary.metrics.blockCoverage ?? { mean: 0, low: 0, high: 0 },
        n: summary.metrics.blockCoverage?.n ?? 0,
      })),
    }),
    ...(summaries.length > 1
      ? ['<h2 id="comparisons">Paired comparisons</h2>', comparisonHtml(summaries)]
      : []),
    '<h2 id="localization-gap">Localization gap</h2>',
    localizationGapHtml(summaries),
    '<h2 id="subgroups">Subgroups</h2>',
    subgroupPanelsHtml(summaries),
    '<h2 id="run-to-run">Run-to-run variation</h2>',
    runToRunHtml(summaries),
    '<h2 id="search-path">Search path</h2>',
    searchPathSectionHtml(options.results),
  ];
  for (const results of options.results) {
    const configSlug = slugs.get(results) ?? slug(results.name);
    sections.push(
      `<h2 id="config-${escapeHtml(configSlug)}">${escapeHtml(results.name)}: attempts</h2>`,
      results.run
        ? `<p class="muted">agent ${escapeHtml(results.run.config.agent.type)}${results.run.config.model ? `, model ${escapeHtml(results.run.config.model.name)}` : ""}; dataset ${escapeHtml(results.run.dataset.name)} ${escapeHtml(results.run.dataset.version)}; harness ${escapeHtml(results.run.harness.version)}</p>`
        : "",
      attemptsTable(configSlug, results),
    );
  }
  files.set("index.html", htmlPage({ title, body: sections.join("\n"), css: REPORT_CSS }));
  options.onEvent?.({ type: "page-render", path: "index.html" });
  // Attempts come grouped by incident: keep one incident's report and artifacts at a time.
  let incident: { id: string; value: ReportIncident | undefined } | undefined;
  for (const results of options.results) {
    const configSlug = slugs.get(results) ?? slug(results.name);
    for (const attempt of results.attempts) {
      options.signal?.throwIfAborted();
      if (incident?.id !== attempt.incidentId)
        incident = {
          id: attempt.incidentId,
          value: await describeIncident(options.sources, attempt.incidentId),
        };
      const path = attemptPath(configSlug, attempt);
      const body = await attemptPageBody({
        configName: results.name,
        attempt,
        indexHref: "../../../index.html",
        sources: options.sources,
        incident: incident.value,
      });
      files.set(
        path,
        htmlPage({
          title: `${attempt.incidentId} attempt ${attempt.attempt}: ${results.name}`,
          body,
          css: REPORT_CSS,
        }),
      );
      options.onEvent?.({ type: "page-render", path });
    }
  }
  return files;
}

/** Options of {@link writeReport}. */
export interface WriteReportOptions extends RenderReportOptions {
  /** The report folder; created if missing. Files are written atomically. */
  outDir: string;
}

/** What {@link writeReport} wrote. */
export interface WriteReportResult {
  /** Absolute path of `index.html`. */
  index: string;
  /** Relative paths of every file written. */
  files: string[];
}

/**
 * Writes the static HTML report (see {@link renderReport}) into one folder; open its
 * `index.html` from disk.
 *
 * @example
 * ```ts
 * const { index } = await writeReport({
 *   results: [await loadResults("results/baseline")],
 *   outDir: "report",
 * });
 * ```
 */
export async function writeReport(options: WriteReportOptions): Promise<WriteReportResult> {
  const files = await renderReport(options);
  for (const [path, content] of files) {
    options.signal?.throwIfAborted();
    await writeFileAtomic(join(options.outDir, path), content);
  }
  options.onEvent?.({ type: "report-write", dir: options.outDir, files: files.size });
  return { index: join(options.outDir, "index.html"), files: [...files.keys()] };
}
