import { fileURLToPath } from "node:url";
import { emptyUsage } from "@distdebug/schema";
import type { Agent } from "../agent.js";

/** Where the baseline program is bound inside the sandbox. */
export const BASELINE_PROGRAM_PATH = "/opt/distdebug/baseline.mjs";

/** The host path of the baseline program (a dependency-free node script). */
export const baselineProgramFile = fileURLToPath(new URL("./program.mjs", import.meta.url));

/** Default rows the baseline's diagnosis may name in total. */
export const DEFAULT_BASELINE_ROW_BUDGET = 60;

/**
 * The offline baseline agent: a lexical localizer that runs inside the sandbox as a node
 * program bound read-only. It ranks code lines by BM25 against the report, logs and stack
 * traces, resolves stack frames to files, and names the top blocks within `agent.rowBudget`
 * rows (default 60). No model, no key, no network; deterministic.
 */
export const baselineAgent: Agent = {
  name: "baseline",
  binds: () => [
    { source: baselineProgramFile, target: BASELINE_PROGRAM_PATH },
    { source: process.execPath, target: "/opt/distdebug/node" },
  ],
  async run(context) {
    const rowBudget = context.config.agent.rowBudget ?? DEFAULT_BASELINE_ROW_BUDGET;
    const timeoutMs = Math.max(1000, context.deadline - Date.now());
    const result = await context.sandbox.exec(`/opt/distdebug/node ${BASELINE_PROGRAM_PATH}`, {
      timeoutMs,
      signal: context.signal,
      env: {
        DISTDEBUG_TASK: "/task",
        DISTDEBUG_WORKSPACE: "/workspace",
        DISTDEBUG_OUTPUT: "/output",
        DISTDEBUG_INCIDENT_ID: context.taskId,
        DISTDEBUG_ROW_BUDGET: String(rowBudget),
      },
    });
    context.emit({
      type: "agent-command-end",
      incidentId: context.incidentId,
      attempt: context.attempt,
      command: "baseline",
      exitCode: result.exitCode,
      durationMs: result.durationMs,
    });
    if (result.timedOut)
      return {
        status: "limit-exceeded",
        message: "the baseline hit the wall-time limit",
        usage: emptyUsage(),
      };
    if (result.exitCode !== 0) {
      const tail = result.stderr.trim().split("\n").slice(-3).join(" | ");
      return {
        status: "agent-error",
        message: `the baseline exited with ${result.exitCode ?? result.signal}: ${tail}`,
        usage: emptyUsage(),
      };
    }
    return { status: "succeeded", usage: { ...emptyUsage(), costUsd: 0 } };
  },
};
