/**
 * The leaderboard table, SVG forest plots, report sections and the static HTML report with a
 * trajectory viewer and the diagnosis on the source code.
 *
 * @packageDocumentation
 * @module @distdebug/report
 */
export { type ForestPlotOptions, type ForestRow, forestPlotSvg } from "./forest-plot.js";
export {
  formatLeaderboard,
  LEADERBOARD_COLUMNS,
  type LeaderboardFormat,
  type LeaderboardRow,
  leaderboardRow,
  rankSummaries,
} from "./leaderboard.js";
export { type LoadedAttempt, type LoadedResults, loadResults } from "./load-results.js";
export type { ReportArtifact, ReportIncident } from "./report-incident.js";
export {
  type FolderSourcesOptions,
  folderSources,
  inMemorySources,
  type ReportSources,
} from "./sources.js";
export {
  comparisonHtml,
  groupLabel,
  localizationGapHtml,
  runToRunHtml,
  subgroupPanelsHtml,
} from "./summary-sections.js";
export {
  type RenderedReport,
  type RenderReportOptions,
  type ReportEvent,
  renderReport,
  type WriteReportOptions,
  type WriteReportResult,
  writeReport,
} from "./write-report.js";
