import { type DatasetStats, datasetStats } from "@distdebug/dataset";
import { defineCommand, usageError } from "../command.js";
import { loadDatasetArg } from "../dataset-arg.js";

function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

function counts(record: Record<string, number | undefined>): string {
  return Object.entries(record)
    .filter(([, count]) => (count ?? 0) > 0)
    .sort(([a, x], [b, y]) => (y ?? 0) - (x ?? 0) || a.localeCompare(b))
    .map(([name, count]) => `${name} ${count}`)
    .join(", ");
}

function blocksPerIncident(record: Record<string, number>): string {
  return Object.entries(record)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([blocks, incidents]) => `${incidents} with ${blocks}`)
    .join(", ");
}

function gap(value: number, paper: number, within: boolean): string {
  const points = Math.round(Math.abs(value - paper) * 100);
  return `(paper ${percent(paper)}; ${within ? "within 10 points" : `${points} points off`})`;
}

/** One line per language: incidents, the clue and multi-block shares, the median block. */
function renderLanguages(stats: DatasetStats): string {
  const rows = Object.entries(stats.byLanguage).map(([language, shape]) => [
    language,
    String(shape.incidents),
    percent(shape.reportWithoutCausalMethod),
    percent(shape.withoutUsableStackTrace),
    percent(shape.multiBlock),
    String(shape.medianBlockLines),
  ]);
  const header = ["language", "incidents", "no method", "no trace", "multi-block", "median lines"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** The stats table: one fact a line, the paper's figure beside it where it has one. */
export function renderStats(stats: DatasetStats): string {
  const { paper, withinPaperShape: within } = stats;
  const rows: [string, string][] = [
    ["incidents", `${stats.incidents} (${stats.labeled} labeled)`],
    ["systems", counts(stats.systems)],
    ["languages", counts(stats.languages)],
    ["categories", counts(stats.categories)],
    [
      "no causal method in report",
      `${percent(stats.reportWithoutCausalMethod)} ${gap(stats.reportWithoutCausalMethod, paper.reportWithoutCausalMethod, within.reportWithoutCausalMethod)}`,
    ],
    [
      "no usable stack trace",
      `${percent(stats.withoutUsableStackTrace)} ${gap(stats.withoutUsableStackTrace, paper.withoutUsableStackTrace, within.withoutUsableStackTrace)}`,
    ],
    [
      "more than one block",
      `${percent(stats.multiBlock)} ${gap(stats.multiBlock, paper.multiBlock, within.multiBlock)}`,
    ],
    [
      "blocks per incident",
      `${stats.meanBlocksPerIncident.toFixed(2)} mean; incidents by block count: ${blocksPerIncident(stats.blocksPerIncident)}`,
    ],
    [
      "median block length",
      `${stats.medianBlockLines} lines over ${stats.blocks} blocks (paper ${paper.medianBlockLines})`,
    ],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  const table = rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join("\n");
  return `${table}\n\n${renderLanguages(stats)}\n`;
}

export default defineCommand({
  usage: "dataset stats <dir>",
  description:
    "Prints a dataset's shape beside the benchmark paper's: systems, languages, categories, the share of reports that do not name the causal method or have no usable stack trace, gold blocks per incident and the median block length. Reads only the dataset's files (no repository).",
  options: {},
  async run(args, io) {
    if (args.positionals.length !== 1) throw usageError("name one dataset folder");
    const stats = await datasetStats(await loadDatasetArg(args.positionals[0]!, io.cwd));
    io.stdout(args.values.json ? `${JSON.stringify(stats, null, 2)}\n` : renderStats(stats));
    return 0;
  },
});
