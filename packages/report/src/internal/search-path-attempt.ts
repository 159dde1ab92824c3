import { type DiagnosisScores, type Trajectory, trajectoryTurns } from "@distdebug/schema";
import { formatTokens } from "@distdebug/stats";
import { SEARCH_OUTCOME_LEGEND } from "../search-path-section.js";
import { escapeHtml } from "./html.js";

/** The anchor of a trajectory step in the attempt page (0-based step index). */
export function stepAnchor(stepIndex: number): string {
  return `step-${stepIndex + 1}`;
}

/** "turn N" linked to the step that showed it: the turn's first output in the trajectory view. */
function turnLink(turn: number | null, trajectory: Trajectory | undefined): string {
  if (turn === null) return "never";
  const step = trajectory
    ? trajectoryTurns(trajectory)[turn - 1]?.observations[0]?.stepIndex
    : undefined;
  return step === undefined
    ? `turn ${turn}`
    : `<a href="#${stepAnchor(step)}" data-turn="${turn}">turn ${turn} (step #${step + 1})</a>`;
}

function costText(tokens: number | null, seconds: number | null): string {
  const parts = [
    tokens === null ? "" : `${formatTokens(tokens)} tokens`,
    seconds === null ? "" : `${seconds.toFixed(1)} s`,
  ].filter((part) => part !== "");
  return parts.length === 0 ? "" : ` <span class="muted">after ${parts.join(", ")}</span>`;
}

/**
 * The search path of one attempt page: where the causal file and block first appeared (linked to
 * the step of the trajectory view) and each gold block's outcome class.
 */
export function searchPathAttemptHtml(
  scores: DiagnosisScores | undefined,
  trajectory: Trajectory | undefined,
): string {
  const search = scores?.search;
  if (!search)
    return '<section class="search-path"><h2>Search path</h2><p class="empty">Not scored with a trajectory.</p></section>';
  const facts: [string, string][] = [
    [
      "causal file first shown",
      `${turnLink(search.firstCausalFileStep, trajectory)}${costText(search.tokensToFirstCausalFile, search.secondsToFirstCausalFile)}`,
    ],
    [
      "causal block first shown",
      `${turnLink(search.firstCausalBlockStep, trajectory)}${costText(search.tokensToFirstCausalBlock, search.secondsToFirstCausalBlock)}`,
    ],
    ["turns", String(search.turns)],
  ];
  const blocks = search.blocks.map((block, index) => {
    const gold = scores.goldBlocks[index];
    const where = gold ? `${gold.path}:${gold.startLine}-${gold.endLine}` : "";
    const legend = SEARCH_OUTCOME_LEGEND[block.outcome];
    return `<li data-gold="${index}" data-outcome="${block.outcome}"><span class="tag">G${index + 1}</span> <code>${escapeHtml(where)}</code> <span class="swatch" style="background:${legend.color}"></span>${legend.label}${block.blockStep === null ? "" : `, block at ${turnLink(block.blockStep, trajectory)}`}${block.fileStep === null ? "" : `, file at ${turnLink(block.fileStep, trajectory)}`}</li>`;
  });
  return [
    '<section class="search-path"><h2>Search path</h2>',
    search.observed
      ? ""
      : '<p class="muted">The trajectory holds no observations: blocks not named are unknown.</p>',
    `<dl class="facts search-facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd data-fact="${term}">${value}</dd>`).join("")}</dl>`,
    `<ol class="search-blocks">${blocks.join("\n")}</ol>`,
    "</section>",
  ].join("\n");
}
