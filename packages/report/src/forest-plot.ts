import { formatEstimate } from "@distdebug/stats";
import { escapeHtml } from "./internal/html.js";

/** One row of a forest plot: a label and a share with its interval (0-1 scale). */
export interface ForestRow {
  label: string;
  estimate: { mean: number; low: number; high: number };
  /** Shown after the label as `n=…` when given. */
  n?: number;
}

/** Options of {@link forestPlotSvg}. */
export interface ForestPlotOptions {
  rows: readonly ForestRow[];
  /** Accessible title of the figure. */
  title: string;
  /** Sort rows by mean, highest first. Default true. */
  sort?: boolean;
  /** Width in pixels. Default 720; widened when the labels need more room. */
  width?: number;
  /** Axis domain on the 0-1 scale. Default [0, 1], widened to fit every interval. */
  domain?: readonly [number, number];
}

const ROW_HEIGHT = 26;
const TOP = 30;
const BOTTOM = 34;
const FONT_SIZE = 12;
/** The plot area keeps at least this width however long the labels are. */
const MIN_PLOT_WIDTH = 240;

/**
 * The width of `text` at {@link FONT_SIZE} in a sans-serif font, estimated from character
 * classes and rounded up, so a label column this wide holds the text without clipping.
 */
function estimateTextWidth(text: string): number {
  let ems = 0;
  for (const char of text) {
    if (char === " ") ems += 0.3;
    else if (/[iljtfr.,:;'!|()[\]{}/\\-]/.test(char)) ems += 0.4;
    else if (/[mwMW@%]/.test(char)) ems += 0.95;
    else if (/[A-Z]/.test(char)) ems += 0.75;
    else if (char.charCodeAt(0) < 128) ems += 0.62;
    else ems += 1;
  }
  return Math.ceil(ems * FONT_SIZE);
}

/**
 * An SVG forest plot: one row per configuration (or subgroup), a dot at the mean and a whisker
 * over the confidence interval, on a 0-100 axis, with the figure written at the right.
 * Self-contained (no fonts or scripts fetched), so it works inline in HTML from `file://`.
 *
 * @example
 * ```ts
 * const svg = forestPlotSvg({
 *   title: "Block coverage",
 *   rows: [{ label: "baseline", estimate: { mean: 0.42, low: 0.3, high: 0.55 }, n: 3 }],
 * });
 * ```
 */
export function forestPlotSvg(options: ForestPlotOptions): string {
  const rows =
    options.sort === false
      ? [...options.rows]
      : [...options.rows].sort(
          (a, b) => b.estimate.mean - a.estimate.mean || a.label.localeCompare(b.label),
        );
  const labels = rows.map((row) => (row.n === undefined ? row.label : `${row.label} (n=${row.n})`));
  const requested = options.width ?? 720;
  const longest = Math.max(0, ...labels.map(estimateTextWidth));
  const labelWidth = Math.max(Math.min(260, Math.round(requested * 0.32)), longest + 6);
  const valueWidth = 150;
  const width = Math.max(requested, labelWidth + 10 + MIN_PLOT_WIDTH + valueWidth + 10);
  let [low, high] = options.domain ?? [0, 1];
  for (const row of rows) {
    low = Math.min(low, row.estimate.low, row.estimate.mean);
    high = Math.max(high, row.estimate.high, row.estimate.mean);
  }
  if (high <= low) high = low + 1;
  const plotLeft = labelWidth + 10;
  const plotRight = width - valueWidth - 10;
  const x = (share: number) =>
    Math.round((plotLeft + ((share - low) / (high - low)) * (plotRight - plotLeft)) * 10) / 10;
  const height = TOP + rows.length * ROW_HEIGHT + BOTTOM;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="forest-plot" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="${FONT_SIZE}">`,
    `<title>${escapeHtml(options.title)}</title>`,
    `<text x="0" y="16" font-weight="600">${escapeHtml(options.title)}</text>`,
  );
  const axisY = TOP + rows.length * ROW_HEIGHT + 4;
  const ticks = 5;
  for (let tick = 0; tick <= ticks; tick++) {
    const share = low + ((high - low) * tick) / ticks;
    const tx = x(share);
    parts.push(
      `<line x1="${tx}" y1="${TOP - 4}" x2="${tx}" y2="${axisY}" stroke="#ddd"/>`,
      `<text x="${tx}" y="${axisY + 16}" text-anchor="middle" fill="#555">${(share * 100).toFixed(0)}</text>`,
    );
  }
  if (low < 0 && high > 0)
    parts.push(`<line x1="${x(0)}" y1="${TOP - 4}" x2="${x(0)}" y2="${axisY}" stroke="#888"/>`);
  rows.forEach((row, index) => {
    const y = TOP + index * ROW_HEIGHT + ROW_HEIGHT / 2;
    const label = labels[index]!;
    parts.push(
      `<g class="forest-row" data-label="${escapeHtml(row.label)}">`,
      `<text x="${labelWidth}" y="${y + 4}" text-anchor="end">${escapeHtml(label)}</text>`,
      `<line class="whisker" x1="${x(row.estimate.low)}" y1="${y}" x2="${x(row.estimate.high)}" y2="${y}" stroke="#1f5fa8" stroke-width="2"/>`,
      `<line x1="${x(row.estimate.low)}" y1="${y - 5}" x2="${x(row.estimate.low)}" y2="${y + 5}" stroke="#1f5fa8" stroke-width="2"/>`,
      `<line x1="${x(row.estimate.high)}" y1="${y - 5}" x2="${x(row.estimate.high)}" y2="${y + 5}" stroke="#1f5fa8" stroke-width="2"/>`,
      `<circle class="mean" cx="${x(row.estimate.mean)}" cy="${y}" r="4.5" fill="#1f5fa8"/>`,
      `<text x="${width - valueWidth}" y="${y + 4}">${escapeHtml(formatEstimate(row.estimate))}</text>`,
      "</g>",
    );
  });
  parts.push("</svg>");
  return parts.join("\n");
}
