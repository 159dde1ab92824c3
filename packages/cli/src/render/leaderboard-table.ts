import type { Summary } from "@distdebug/schema";
import { formatEstimate, formatTokens } from "@distdebug/stats";

/** One row of the leaderboard table, as text cells. */
function row(summary: Summary): string[] {
  const failed = `${summary.counts.failedAttempts}/${summary.counts.attempts}`;
  const estimate = (name: string) => {
    const value = summary.metrics[name as keyof Summary["metrics"]];
    return value ? formatEstimate(value) : "-";
  };
  return [
    summary.name,
    String(summary.counts.incidents),
    estimate("blockCoverage"),
    estimate("blockPrecision"),
    estimate("fileCoverage"),
    formatTokens(summary.usage.tokensPerRun),
    failed,
  ];
}

/**
 * Renders summaries as the leaderboard's table: configuration, incidents, block coverage with
 * its 95% CI, block precision, file coverage, tokens per run, failed attempts (0-100 scale).
 */
export function leaderboardTable(summaries: readonly Summary[]): string {
  const header = [
    "configuration",
    "incidents",
    "block coverage",
    "block precision",
    "file coverage",
    "tokens/run",
    "failed",
  ];
  const rows = [header, ...summaries.map(row)];
  const widths = header.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  const lines = rows.map((cells) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join("  "),
  );
  lines.splice(1, 0, widths.map((width) => "-".repeat(width)).join("  "));
  const notes: string[] = [];
  for (const summary of summaries) {
    if (!summary.complete)
      notes.push(
        `${summary.name}: incomplete (${summary.counts.infraErrors} infra errors, ${summary.counts.missingAttempts} missing attempts)`,
      );
  }
  return `${[...lines, ...notes].join("\n")}\n`;
}
