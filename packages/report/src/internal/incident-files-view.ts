import type { ReportIncident } from "../report-incident.js";
import { escapeHtml } from "./html.js";

/** At most this many characters of one file (the report or an artifact) are inlined. */
export const INLINE_FILE_CHARS = 64 * 1024;
/** At most this many characters of an incident's files are inlined on one page. */
export const INLINE_PAGE_CHARS = 256 * 1024;
/** Artifacts longer than this many lines start folded. */
const OPEN_LINES = 40;

const number = (value: number) => value.toLocaleString("en");

function lineCount(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/** Less than this left of the page's budget: the next file is described, not inlined. */
const MIN_INLINE_CHARS = 4096;

/**
 * The first `budget` characters of `text`, cut at a line end when there is one (a first line
 * longer than a whole file's budget is cut inside); nothing when the page's budget runs low.
 */
function head(text: string, budget: number): string {
  if (text.length <= budget) return text;
  if (budget < MIN_INLINE_CHARS) return "";
  const cut = text.slice(0, budget);
  const lineEnd = cut.lastIndexOf("\n");
  return lineEnd > 0 ? cut.slice(0, lineEnd + 1) : cut;
}

function fileHtml(options: {
  kind: "report" | "artifact";
  path: string;
  label: string;
  content: string;
  budget: number;
  open: boolean;
}): { html: string; shown: number } {
  const { content } = options;
  const shown = head(content, Math.min(INLINE_FILE_CHARS, options.budget));
  const lines = lineCount(content);
  const where =
    options.kind === "report"
      ? "the incident's report file in the dataset"
      : `<code>${escapeHtml(options.path)}</code> in the incident folder of the dataset`;
  const rest =
    shown.length === content.length
      ? ""
      : shown.length === 0
        ? `<p class="muted clipped">Not shown: this page inlines at most ${number(INLINE_PAGE_CHARS)} characters of the incident's files; all ${number(lines)} lines (${number(content.length)} characters) are in ${where}.</p>`
        : `<p class="muted clipped">Showing the first ${number(lineCount(shown))} of ${number(lines)} lines (${number(shown.length)} of ${number(content.length)} characters; at most ${number(INLINE_FILE_CHARS)} characters of a file are inlined); the whole file is ${where}.</p>`;
  const body = shown === "" ? "" : `<pre class="incident-text">${escapeHtml(shown)}</pre>`;
  return {
    html: `<details class="incident-file ${options.kind}" data-path="${escapeHtml(options.path)}"${options.open ? " open" : ""}><summary>${options.label} <span class="muted">${number(lines)} line${lines === 1 ? "" : "s"}</span></summary>${body}${rest}</details>`,
    shown: shown.length,
  };
}

/**
 * What the agent was given: the incident report and each artifact, as escaped text, each file
 * inlined up to {@link INLINE_FILE_CHARS} characters and the page up to
 * {@link INLINE_PAGE_CHARS}; what is left out is described (lines, characters, path).
 */
export function incidentFilesHtml(incident: ReportIncident | undefined): string {
  const heading = "<h2>What the agent saw</h2>";
  if (incident?.report === undefined && (incident?.artifacts ?? []).length === 0)
    return `<section class="incident-files">${heading}<p class="empty">${
      incident
        ? "The incident's report and artifacts are not available."
        : "The incident's report and artifacts are unknown: the incident is not in the dataset the report was made with (<code>distdebug report --dataset</code> names one)."
    }</p></section>`;
  let budget = INLINE_PAGE_CHARS;
  const parts: string[] = [];
  const add = (rendered: { html: string; shown: number }) => {
    parts.push(rendered.html);
    budget -= rendered.shown;
  };
  if (incident?.report !== undefined)
    add(
      fileHtml({
        kind: "report",
        // The agent reads it as /task/report.md.
        path: "report.md",
        label: "<code>report.md</code>",
        content: incident.report,
        budget,
        open: true,
      }),
    );
  for (const artifact of incident?.artifacts ?? [])
    add(
      fileHtml({
        kind: "artifact",
        path: artifact.path,
        label: [
          `<code>${escapeHtml(artifact.path)}</code>`,
          artifact.kind ? ` <span class="tag-kind">${escapeHtml(artifact.kind)}</span>` : "",
          artifact.description ? ` ${escapeHtml(artifact.description)}` : "",
        ].join(""),
        content: artifact.content,
        budget,
        open: lineCount(artifact.content) <= OPEN_LINES,
      }),
    );
  return [
    '<section class="incident-files">',
    heading,
    '<p class="muted">The incident report and artifacts as the dataset holds them now (what the agent read under <code>/task</code>), shown as text.</p>',
    ...parts,
    "</section>",
  ].join("\n");
}
