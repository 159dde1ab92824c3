import { spentUsd, type Trajectory, type TrajectoryStep } from "@distdebug/schema";
import { formatCostUsd, formatTokens } from "@distdebug/stats";
import { formatDuration } from "./format-duration.js";
import { escapeHtml } from "./html.js";

const MAX_CHARS = 20_000;

function clip(text: string): string {
  if (text.length <= MAX_CHARS) return escapeHtml(text);
  return `${escapeHtml(text.slice(0, MAX_CHARS))}\n<span class="muted">[${text.length - MAX_CHARS} more characters not shown]</span>`;
}

function stepHtml(step: TrajectoryStep, index: number): string {
  // Each step is a link target (the search path links the turn that showed the causal code).
  const number = `<span class="step-number" id="step-${index + 1}">#${index + 1}</span>`;
  switch (step.type) {
    case "message": {
      const long = step.content.length > 600 || step.content.split("\n").length > 12;
      const body = `<pre>${clip(step.content)}</pre>`;
      return `<li class="step message role-${step.role}">${number} <span class="kind">${step.role}</span>${long ? `<details><summary>${escapeHtml(step.content.slice(0, 120).split("\n")[0] ?? "")}&hellip;</summary>${body}</details>` : body}</li>`;
    }
    case "model-call": {
      const facts = [
        step.model ? escapeHtml(step.model) : "model call",
        `${formatTokens(step.inputTokens)} in`,
        `${formatTokens(step.outputTokens)} out`,
        step.cachedTokens > 0 ? `${formatTokens(step.cachedTokens)} cached` : "",
        step.costUsd === null ? "" : formatCostUsd(step.costUsd),
        formatDuration(step.durationMs),
      ].filter((fact) => fact !== "");
      return `<li class="step model-call">${number} <span class="kind">model</span> ${facts.join(" &middot; ")}${step.error ? ` <span class="error">${escapeHtml(step.error)}</span>` : ""}</li>`;
    }
    case "command": {
      const status =
        step.exitCode === null
          ? `<span class="exit bad">killed${step.timedOut ? " (timeout)" : ""}</span>`
          : `<span class="exit ${step.exitCode === 0 ? "ok" : "bad"}">exit ${step.exitCode}</span>`;
      const lines = step.output === "" ? 0 : step.output.split("\n").length;
      return [
        `<li class="step command">${number} <span class="kind">command</span> ${status} <span class="muted">${formatDuration(step.durationMs)}</span>`,
        `<pre class="command-text">$ ${escapeHtml(step.command)}</pre>`,
        lines === 0
          ? '<p class="muted">no output</p>'
          : `<details${lines <= 8 ? " open" : ""}><summary>output, ${lines} line${lines === 1 ? "" : "s"}${step.truncated ? " (truncated)" : ""}</summary><pre class="output">${clip(step.output)}</pre></details>`,
        "</li>",
      ].join("");
    }
  }
}

/** The trajectory viewer: header facts (agent, model, exit, tokens, cost, time) and every step. */
export function trajectoryHtml(trajectory: Trajectory | undefined): string {
  if (!trajectory) return '<p class="empty">No trajectory.json in this attempt.</p>';
  const usage = trajectory.usage;
  const facts: [string, string][] = [
    [
      "agent",
      `${trajectory.agent.name}${trajectory.agent.version ? ` ${trajectory.agent.version}` : ""}`,
    ],
    ["model", trajectory.model?.name ?? "none"],
    ["exit status", trajectory.exitStatus],
    [
      "tokens",
      `${formatTokens(usage.inputTokens + usage.outputTokens)} (${formatTokens(usage.inputTokens)} in, ${formatTokens(usage.outputTokens)} out, ${formatTokens(usage.cachedTokens)} cached)`,
    ],
    ["model calls", String(usage.calls)],
    ["cost", formatCostUsd(spentUsd(usage))],
    ["steps", String(trajectory.steps.length)],
  ];
  if (trajectory.durationMs !== undefined)
    facts.push(["duration", formatDuration(trajectory.durationMs)]);
  if (trajectory.convertedFrom) facts.push(["converted from", trajectory.convertedFrom]);
  return [
    `<dl class="facts trajectory-facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd data-fact="${term}">${escapeHtml(value)}</dd>`).join("")}</dl>`,
    `<ol class="steps">${trajectory.steps.map(stepHtml).join("\n")}</ol>`,
  ].join("\n");
}
