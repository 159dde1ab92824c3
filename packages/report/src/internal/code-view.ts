import type { DiagnosisScores, GoldBlock } from "@distdebug/schema";
import { escapeHtml } from "./html.js";

/** A gold block with whether the diagnosis reached it. */
export interface GoldView {
  path: string;
  startLine: number;
  endLine: number;
  reached: boolean;
  note?: string;
}

/** A predicted line range (a named span, or one definition of a named symbol). */
export interface SpanView {
  index: number;
  path: string;
  startLine: number;
  endLine: number;
  /** Some of its lines are gold. */
  correct: boolean;
}

/** Gold blocks from the scores, with notes from the provider's gold when given. */
export function goldViews(
  scores: DiagnosisScores | undefined,
  gold: readonly GoldBlock[] | undefined,
): GoldView[] {
  const noteOf = (block: { path: string; startLine: number; endLine: number }) =>
    gold?.find(
      (candidate) =>
        candidate.path === block.path &&
        candidate.startLine === block.startLine &&
        candidate.endLine === block.endLine,
    )?.note;
  if (scores) {
    return scores.goldBlocks.map((block) => {
      const note = noteOf(block);
      return {
        path: block.path,
        startLine: block.startLine,
        endLine: block.endLine,
        reached: block.reached,
        ...(note === undefined ? {} : { note }),
      };
    });
  }
  return (gold ?? []).map((block) => ({
    path: block.path,
    startLine: block.startLine,
    endLine: block.endLine,
    reached: false,
    ...(block.note === undefined ? {} : { note: block.note }),
  }));
}

/** Predicted line ranges from the scores' resolved spans (symbols resolved to definitions). */
export function spanViews(
  scores: DiagnosisScores | undefined,
  gold: readonly GoldView[],
): SpanView[] {
  if (!scores) return [];
  const views: SpanView[] = [];
  const overlapsGold = (path: string, start: number, end: number) =>
    gold.some((block) => block.path === path && start <= block.endLine && end >= block.startLine);
  scores.spans.forEach((span, index) => {
    const ranges: { path: string; startLine: number; endLine: number }[] = [];
    if (span.kind === "lines" && span.path && span.startLine !== undefined) {
      const start = Math.min(span.startLine, span.endLine ?? span.startLine);
      const end = Math.max(span.startLine, span.endLine ?? span.startLine);
      ranges.push({ path: span.path, startLine: start, endLine: end });
    } else if (span.kind === "symbol") {
      for (const definition of span.definitions) ranges.push(definition);
    }
    for (const range of ranges)
      views.push({
        index,
        ...range,
        correct: span.goldAtoms > 0 || overlapsGold(range.path, range.startLine, range.endLine),
      });
  });
  return views;
}

const CONTEXT = 4;
const WHOLE_FILE_LINES = 300;

/**
 * One file's code with gold lines (hit or missed) and predicted lines marked. Short files are
 * shown whole; long ones as windows around the marked ranges.
 */
export function codeViewHtml(options: {
  path: string;
  text: string;
  gold: readonly GoldView[];
  spans: readonly SpanView[];
}): string {
  const lines = options.text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const gold = options.gold.filter((block) => block.path === options.path);
  const spans = options.spans.filter((span) => span.path === options.path);
  const shown = new Set<number>();
  if (lines.length <= WHOLE_FILE_LINES) {
    for (let line = 1; line <= lines.length; line++) shown.add(line);
  } else {
    for (const range of [...gold, ...spans]) {
      const from = Math.max(1, range.startLine - CONTEXT);
      const to = Math.min(lines.length, range.endLine + CONTEXT);
      for (let line = from; line <= to; line++) shown.add(line);
    }
  }
  const rows: string[] = [];
  let previous = 0;
  for (let line = 1; line <= lines.length; line++) {
    if (!shown.has(line)) continue;
    if (line > previous + 1)
      rows.push(
        `<tr class="gap"><td class="ln"></td><td class="mark"></td><td>&#8942; ${line - previous - 1} lines</td></tr>`,
      );
    previous = line;
    const goldHere = gold.filter((block) => line >= block.startLine && line <= block.endLine);
    const spansHere = spans.filter((span) => line >= span.startLine && line <= span.endLine);
    const classes = ["line"];
    const marks: string[] = [];
    if (goldHere.length > 0) {
      const hit = goldHere.some((block) => block.reached);
      classes.push("gold", hit ? "hit" : "miss");
      marks.push(hit ? "G&#10003;" : "G&#10007;");
    }
    if (spansHere.length > 0) {
      classes.push("pred", goldHere.length > 0 ? "pred-correct" : "pred-wrong");
      marks.push(`D${spansHere.map((span) => span.index + 1).join(",")}`);
    }
    rows.push(
      `<tr class="${classes.join(" ")}" data-line="${line}"><td class="ln">${line}</td><td class="mark">${marks.join(" ")}</td><td><code>${escapeHtml(lines[line - 1] ?? "")}</code></td></tr>`,
    );
  }
  if (previous < lines.length && previous > 0)
    rows.push(
      `<tr class="gap"><td class="ln"></td><td class="mark"></td><td>&#8942; ${lines.length - previous} lines</td></tr>`,
    );
  return [
    `<figure class="code-view" data-path="${escapeHtml(options.path)}">`,
    `<figcaption>${escapeHtml(options.path)} <span class="muted">(${lines.length} lines)</span></figcaption>`,
    `<table class="code"><tbody>${rows.join("\n")}</tbody></table>`,
    "</figure>",
  ].join("\n");
}
