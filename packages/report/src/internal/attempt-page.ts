import { formatPoints } from "@distdebug/stats";
import type { LoadedAttempt } from "../load-results.js";
import type { ReportIncident } from "../report-incident.js";
import type { ReportSources } from "../sources.js";
import { codeViewHtml, goldViews, spanViews } from "./code-view.js";
import { escapeHtml } from "./html.js";
import { incidentFilesHtml } from "./incident-files-view.js";
import { searchPathAttemptHtml } from "./search-path-attempt.js";
import { trajectoryHtml } from "./trajectory-view.js";

function diagnosisListHtml(attempt: LoadedAttempt): string {
  const diagnosis = attempt.diagnosis;
  if (!diagnosis) return '<p class="empty">No valid diagnosis.json.</p>';
  const spans = attempt.scores?.spans;
  const items = diagnosis.blocks.map((block, index) => {
    const where = [
      block.path ?? "",
      block.startLine === undefined
        ? ""
        : `:${block.startLine}${block.endLine === undefined ? "" : `-${block.endLine}`}`,
      block.symbol ? ` ${block.symbol}` : "",
    ].join("");
    const span = spans?.[index];
    const verdict = span
      ? span.goldAtoms > 0
        ? '<span class="verdict hit">names gold code</span>'
        : '<span class="verdict miss">no gold code</span>'
      : "";
    const warnings =
      span && span.warnings.length > 0
        ? ` <span class="warn">${escapeHtml(span.warnings.join(", "))}</span>`
        : "";
    return `<li class="diagnosis-block" data-span="${index}"><span class="tag">D${index + 1}</span> <code>${escapeHtml(where)}</code> ${verdict}${warnings}${block.reason ? `<div class="reason">${escapeHtml(block.reason)}</div>` : ""}</li>`;
  });
  return [
    diagnosis.summary ? `<p class="summary">${escapeHtml(diagnosis.summary)}</p>` : "",
    items.length === 0
      ? '<p class="empty">The diagnosis names no code.</p>'
      : `<ol class="diagnosis-blocks">${items.join("\n")}</ol>`,
  ].join("\n");
}

/**
 * The page of one attempt: the incident's title, metrics, diagnosis beside gold, code with hits
 * and misses, the report and artifacts the agent saw, and the trajectory.
 */
export async function attemptPageBody(options: {
  configName: string;
  attempt: LoadedAttempt;
  indexHref: string;
  sources: ReportSources | undefined;
  /** Undefined when the sources do not know the incident. */
  incident: ReportIncident | undefined;
}): Promise<string> {
  const { attempt, sources } = options;
  const providedGold = sources?.gold ? await sources.gold(attempt.incidentId) : undefined;
  const gold = goldViews(attempt.scores, providedGold);
  const spans = spanViews(attempt.scores, gold);
  const record = attempt.record;
  const metrics = attempt.scores?.metrics ?? record?.metrics;
  const incident = options.incident;
  const facts: [string, string][] = [
    ["title", incident?.title ?? "unknown"],
    ["system", incident?.system ?? "unknown"],
    ["languages", incident ? incident.languages.join(", ") : "unknown"],
    ["status", record?.status ?? "unknown (no attempt.json)"],
    ["block coverage", metrics ? formatPoints(metrics.blockCoverage) : "-"],
    ["block precision", metrics ? formatPoints(metrics.blockPrecision) : "-"],
    ["file coverage", metrics ? formatPoints(metrics.fileCoverage) : "-"],
    ["line precision", metrics ? formatPoints(metrics.linePrecision) : "-"],
  ];
  if (record?.error) facts.push(["error", `${record.error.code}: ${record.error.message}`]);
  const goldItems = gold.map(
    (block, index) =>
      `<li class="gold-block ${block.reached ? "hit" : "miss"}" data-gold="${index}"><span class="tag">G${index + 1}</span> <code>${escapeHtml(`${block.path}:${block.startLine}-${block.endLine}`)}</code> <span class="verdict ${block.reached ? "hit" : "miss"}">${block.reached ? "reached" : "missed"}</span>${block.note ? `<div class="reason">${escapeHtml(block.note)}</div>` : ""}</li>`,
  );
  const paths = [
    ...new Set([...gold.map((block) => block.path), ...spans.map((span) => span.path)]),
  ];
  const views: string[] = [];
  const unavailable: string[] = [];
  for (const path of paths) {
    const text = sources ? await sources.readSource(attempt.incidentId, path) : undefined;
    if (text === undefined) unavailable.push(path);
    else views.push(codeViewHtml({ path, text, gold, spans }));
  }
  const title = `${attempt.incidentId} attempt ${attempt.attempt}`;
  return [
    `<nav><a href="${escapeHtml(options.indexHref)}">&larr; report</a> &middot; ${escapeHtml(options.configName)}</nav>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<dl class="facts attempt-facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd data-fact="${term}">${escapeHtml(value)}</dd>`).join("")}</dl>`,
    attempt.problems.length > 0
      ? `<ul class="problems">${attempt.problems.map((problem) => `<li>${escapeHtml(problem)}</li>`).join("")}</ul>`
      : "",
    '<section class="side-by-side">',
    `<div class="column"><h2>Diagnosis</h2>${diagnosisListHtml(attempt)}</div>`,
    `<div class="column"><h2>Gold blocks</h2>${goldItems.length === 0 ? '<p class="empty">No gold blocks (no diagnosis_scores.json and no gold given).</p>' : `<ol class="gold-blocks">${goldItems.join("\n")}</ol>`}</div>`,
    "</section>",
    '<section class="code-section"><h2>Code at the buggy revision</h2>',
    '<p class="legend"><span class="swatch gold hit"></span> gold, reached <span class="swatch gold miss"></span> gold, missed <span class="swatch pred-wrong"></span> named by the diagnosis, not gold</p>',
    views.join("\n"),
    unavailable.length > 0
      ? `<p class="muted">Source not available for ${unavailable.map((path) => `<code>${escapeHtml(path)}</code>`).join(", ")}.</p>`
      : "",
    "</section>",
    searchPathAttemptHtml(attempt.scores, attempt.trajectory),
    incidentFilesHtml(incident),
    `<section class="trajectory"><h2>Trajectory</h2>${trajectoryHtml(attempt.trajectory)}</section>`,
  ].join("\n");
}
