import type { Summary } from "@distdebug/schema";
import { formatCostUsd, formatEstimate, formatTokens } from "@distdebug/stats";
import { escapeHtml } from "./internal/html.js";

/** The leaderboard's columns, in order. */
export const LEADERBOARD_COLUMNS = [
  "configuration",
  "incidents",
  "block coverage",
  "block precision",
  "file coverage",
  "localization gap",
  "tokens/run",
  "cost/run",
  "failed",
] as const;

/** One leaderboard row as text cells, keyed by column. */
export type LeaderboardRow = Record<(typeof LEADERBOARD_COLUMNS)[number], string>;

/** Output format of {@link formatLeaderboard}. */
export type LeaderboardFormat = "text" | "markdown" | "html";

/**
 * One summary as leaderboard cells on the 0-100 scale: block coverage, precision and file
 * coverage with their 95% CI (`72.6 [65.7, 79.3]`), the localization gap (file minus block
 * coverage, paired), tokens and cost per run, failed attempts out of attempts read.
 *
 * @example
 * ```ts
 * leaderboardRow(summary)["block coverage"]; // "72.6 [65.7, 79.3]"
 * ```
 */
export function leaderboardRow(summary: Summary): LeaderboardRow {
  const estimate = (name: keyof Summary["metrics"]) => {
    const value = summary.metrics[name];
    // No scored incident: no estimate, not a zero.
    return value && value.n > 0 ? formatEstimate(value) : "-";
  };
  return {
    configuration: summary.name,
    incidents: String(summary.counts.scoredIncidents),
    "block coverage": estimate("blockCoverage"),
    "block precision": estimate("blockPrecision"),
    "file coverage": estimate("fileCoverage"),
    "localization gap": summary.localizationGap ? formatEstimate(summary.localizationGap) : "-",
    "tokens/run": formatTokens(summary.usage.tokensPerRun),
    "cost/run": formatCostUsd(summary.usage.costPerRunUsd),
    failed: `${summary.counts.failedAttempts}/${summary.counts.attempts}`,
  };
}

/**
 * Summaries sorted for the leaderboard: block coverage mean, highest first; ties by name.
 *
 * @example
 * ```ts
 * const ranked = rankSummaries([a, b]);
 * ```
 */
export function rankSummaries(summaries: readonly Summary[]): Summary[] {
  return [...summaries].sort(
    (a, b) =>
      (b.metrics.blockCoverage?.mean ?? 0) - (a.metrics.blockCoverage?.mean ?? 0) ||
      a.name.localeCompare(b.name),
  );
}

function textTable(rows: readonly LeaderboardRow[]): string {
  const cells = [
    [...LEADERBOARD_COLUMNS],
    ...rows.map((row) => LEADERBOARD_COLUMNS.map((column) => row[column])),
  ];
  const widths = LEADERBOARD_COLUMNS.map((_, column) =>
    Math.max(...cells.map((line) => line[column]!.length)),
  );
  const lines = cells.map((line) =>
    line
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((width) => "-".repeat(width)).join("  "));
  return `${lines.join("\n")}\n`;
}

function markdownTable(rows: readonly LeaderboardRow[]): string {
  const escapeCell = (cell: string) => cell.replaceAll("|", "\\|");
  const lines = [
    `| ${LEADERBOARD_COLUMNS.join(" | ")} |`,
    `|${LEADERBOARD_COLUMNS.map((_, index) => (index === 0 ? " --- " : " ---: ")).join("|")}|`,
    ...rows.map(
      (row) => `| ${LEADERBOARD_COLUMNS.map((column) => escapeCell(row[column])).join(" | ")} |`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

function htmlTable(
  rows: readonly LeaderboardRow[],
  links?: readonly (string | undefined)[],
): string {
  const head = LEADERBOARD_COLUMNS.map(
    (column) => `<th scope="col">${escapeHtml(column)}</th>`,
  ).join("");
  const body = rows
    .map((row, index) => {
      const cells = LEADERBOARD_COLUMNS.map((column, position) => {
        const text = escapeHtml(row[column]);
        const link = links?.[index];
        if (position === 0)
          return `<th scope="row" data-column="${column}">${link ? `<a href="${escapeHtml(link)}">${text}</a>` : text}</th>`;
        return `<td data-column="${column}">${text}</td>`;
      });
      return `<tr data-config="${escapeHtml(row.configuration)}">${cells.join("")}</tr>`;
    })
    .join("\n");
  return `<table class="leaderboard">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>\n`;
}

/**
 * The leaderboard of several configurations, ranked by block coverage, as an aligned
 * terminal table (`text`, the default), a Markdown table, or an HTML `<table>`.
 * Incomplete summaries get a note line in text and Markdown.
 *
 * @param options.links - HTML only: a link per ranked row for the configuration cell.
 * @example
 * ```ts
 * process.stdout.write(formatLeaderboard([summary], { format: "markdown" }));
 * ```
 */
export function formatLeaderboard(
  summaries: readonly Summary[],
  options: { format?: LeaderboardFormat; links?: readonly (string | undefined)[] } = {},
): string {
  const ranked = rankSummaries(summaries);
  const rows = ranked.map(leaderboardRow);
  const format = options.format ?? "text";
  if (format === "html") return htmlTable(rows, options.links);
  const notes = ranked
    .filter((summary) => !summary.complete)
    .map(
      (summary) =>
        `${summary.name}: incomplete (${summary.counts.infraErrors} infra errors, ${summary.counts.interrupted} interrupted, ${summary.counts.missingAttempts} missing attempts)`,
    );
  const table = format === "markdown" ? markdownTable(rows) : textTable(rows);
  return notes.length === 0
    ? table
    : `${table}${format === "markdown" ? "\n" : ""}${notes.join("\n")}\n`;
}
