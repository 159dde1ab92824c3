import { formatPoints } from "@distdebug/stats";
import { formatDuration } from "./format-duration.js";
import { escapeHtml } from "./html.js";
import type { IncidentRow } from "./incident-rows.js";

/** A sort direction of the per-incident table. */
export type SortDirection = "asc" | "desc";

/** A column of the per-incident table. */
export interface IncidentColumn {
  /** In ids and links: `#by-<key>-<direction>`. */
  key: string;
  label: string;
  /** The direction a first click on the header sorts by. */
  first: SortDirection;
  /** The sort value; undefined values go last in both directions. */
  value(row: IncidentRow): string | number | undefined;
  /** The cell's inner HTML (escaped). */
  cell(row: IncidentRow): string;
}

const UNKNOWN = '<span class="unknown">unknown</span>';

const text = (value: string | undefined) => (value === undefined ? UNKNOWN : escapeHtml(value));
const points = (value: number | undefined) => (value === undefined ? "-" : formatPoints(value));

function metricColumn(
  key: string,
  label: string,
  pick: (row: IncidentRow) => number | undefined,
): IncidentColumn {
  return { key, label, first: "desc", value: pick, cell: (row) => points(pick(row)) };
}

/** The columns, in order; `configuration` only when the report has several. */
export const INCIDENT_COLUMNS: readonly IncidentColumn[] = [
  {
    key: "id",
    label: "incident",
    first: "asc",
    value: (row) => row.incidentId,
    cell: (row) => `<a href="${escapeHtml(row.attemptsHref)}">${escapeHtml(row.incidentId)}</a>`,
  },
  {
    key: "configuration",
    label: "configuration",
    first: "asc",
    value: (row) => row.configName,
    cell: (row) => escapeHtml(row.configName),
  },
  {
    key: "title",
    label: "title",
    first: "asc",
    value: (row) => row.facts?.title,
    cell: (row) => text(row.facts?.title),
  },
  {
    key: "system",
    label: "system",
    first: "asc",
    value: (row) => row.facts?.system,
    cell: (row) => text(row.facts?.system),
  },
  {
    key: "languages",
    label: "languages",
    first: "asc",
    value: (row) => row.facts?.languages.join(", "),
    cell: (row) => text(row.facts?.languages.join(", ")),
  },
  metricColumn("block-coverage", "block coverage", (row) => row.blockCoverage),
  metricColumn("block-precision", "block precision", (row) => row.blockPrecision),
  metricColumn("file-coverage", "file coverage", (row) => row.fileCoverage),
  {
    key: "status",
    label: "status",
    first: "desc",
    // The share of expected attempts that succeeded.
    value: (row) =>
      row.status.expected === 0 ? undefined : row.status.succeeded / row.status.expected,
    cell: (row) => escapeHtml(row.status.text),
  },
  {
    key: "duration",
    label: "duration (median)",
    first: "desc",
    value: (row) => row.medianDurationMs,
    cell: (row) =>
      row.medianDurationMs === undefined ? "-" : formatDuration(row.medianDurationMs),
  },
];

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

function compareValues(a: string | number, b: string | number): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return collator.compare(String(a), String(b));
}

/** Rows sorted by a column: unknown values last, ties by incident id then configuration. */
export function sortIncidentRows(
  rows: readonly IncidentRow[],
  column: IncidentColumn,
  direction: SortDirection,
): IncidentRow[] {
  const sign = direction === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const left = column.value(a);
    const right = column.value(b);
    const byValue =
      left === undefined || right === undefined
        ? Number(left === undefined) - Number(right === undefined)
        : sign * compareValues(left, right);
    return (
      byValue ||
      collator.compare(a.incidentId, b.incidentId) ||
      collator.compare(a.configName, b.configName)
    );
  });
}

/** The id of the copy of the table sorted by `column` in `direction`. */
export function sortId(column: IncidentColumn, direction: SortDirection): string {
  return `by-${column.key}-${direction}`;
}

function headerHtml(
  columns: readonly IncidentColumn[],
  sorted: IncidentColumn,
  direction: SortDirection,
): string {
  return columns
    .map((column) => {
      const current = column === sorted;
      const next = current ? (direction === "asc" ? "desc" : "asc") : column.first;
      const mark = current
        ? `<span class="sort-mark">${direction === "asc" ? "&#9650;" : "&#9660;"}</span>`
        : "";
      const ariaSort = current
        ? ` aria-sort="${direction === "asc" ? "ascending" : "descending"}"`
        : "";
      const align = TEXT_COLUMNS.has(column.key) ? ' class="text"' : "";
      return `<th scope="col" data-column="${column.key}"${align}${ariaSort}><a href="#${sortId(column, next)}">${escapeHtml(column.label)}${mark}</a></th>`;
    })
    .join("");
}

/** Columns of words, aligned left (figures align right). */
const TEXT_COLUMNS = new Set(["title", "system", "languages", "configuration", "status"]);

function rowHtml(columns: readonly IncidentColumn[], row: IncidentRow): string {
  const cells = columns.map((column) => {
    const classes = [
      TEXT_COLUMNS.has(column.key) ? "text" : "",
      column.key === "status"
        ? row.status.expected > 0 && row.status.succeeded === row.status.expected
          ? "status ok"
          : "status bad"
        : "",
    ]
      .join(" ")
      .trim();
    const attributes = `data-column="${column.key}"${classes ? ` class="${classes}"` : ""}`;
    return column.key === "id"
      ? `<th scope="row" ${attributes}>${column.cell(row)}</th>`
      : `<td ${attributes}>${column.cell(row)}</td>`;
  });
  return `<tr data-incident="${escapeHtml(row.incidentId)}" data-config="${escapeHtml(row.configName)}">${cells.join("")}</tr>`;
}

/**
 * The per-incident table, sortable by every column without a script: one copy of the table
 * per column and direction (`<div id="by-<column>-<direction>">`), the column headers link to
 * the copies, and CSS shows the copy the URL's fragment targets (`:target`), or the copy by
 * incident id when none is targeted (it comes last, so `:target ~ .default` hides it).
 */
export function incidentTableHtml(
  rows: readonly IncidentRow[],
  options: { severalConfigurations: boolean },
): string {
  const columns = INCIDENT_COLUMNS.filter(
    (column) => column.key !== "configuration" || options.severalConfigurations,
  );
  const orders = columns.flatMap((column) =>
    (["asc", "desc"] as const).map((direction) => ({ column, direction })),
  );
  const isDefault = (order: (typeof orders)[number]) =>
    order.column.key === "id" && order.direction === "asc";
  const copies = [...orders.filter((order) => !isDefault(order)), ...orders.filter(isDefault)].map(
    ({ column, direction }) => {
      const body = sortIncidentRows(rows, column, direction)
        .map((row) => rowHtml(columns, row))
        .join("\n");
      return `<div class="incident-sort${isDefault({ column, direction }) ? " default" : ""}" id="${sortId(column, direction)}" data-sort="${column.key}" data-direction="${direction}"><table class="incidents"><thead><tr>${headerHtml(columns, column, direction)}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
    },
  );
  return `<div class="incident-sorts">\n${copies.join("\n")}\n</div>`;
}
