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
