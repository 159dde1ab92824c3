import type { Trajectory, TrajectoryStep, Usage } from "@distdebug/schema";
import type { MeteredCall } from "../model/usage-meter.js";

/**
 * Merges an agent's own trajectory with the gateway's metered calls. The agent's steps are
 * kept in order, except its own `model-call` steps, which are replaced by the gateway's
 * measured ones (kept under `extra.agentModelCalls` for comparison). The calls are placed by
 * time where the agent's steps carry `at`; where none does (mini-swe-agent trajectories), by
 * position: each of the agent's own model calls, or else each assistant message, marks where
 * the next call happened. `usage` becomes the gateway's; the agent's claim is kept as
 * `extra.agentReportedUsage`.
 *
 * @example
 * ```ts
 * const merged = mergeTrajectory(parseTrajectory(text), meter.calls, meter.usage);
 * ```
 */
export function mergeTrajectory(
  agent: Trajectory,
  calls: readonly MeteredCall[],
  usage: Usage,
): Trajectory {
  const ownCalls = agent.steps.filter((step) => step.type === "model-call");
  const timed = agent.steps.some((step) => !Number.isNaN(timeOf(step)));
  return {
    ...agent,
    usage,
    steps: timed ? placeByTime(agent.steps, calls) : placeByPosition(agent.steps, calls),
    extra: {
      ...agent.extra,
      meteredBy: "distdebug-gateway",
      agentReportedUsage: agent.usage,
      ...(ownCalls.length > 0 ? { agentModelCalls: ownCalls } : {}),
    },
  };
}

const timeOf = (step: TrajectoryStep): number =>
  step.at === undefined ? Number.NaN : Date.parse(step.at);

/** The agent's steps without its own calls, each metered call before the first later step. */
function placeByTime(
  agentSteps: readonly TrajectoryStep[],
  calls: readonly MeteredCall[],
): TrajectoryStep[] {
  const queue = [...calls];
  const steps: TrajectoryStep[] = [];
  for (const step of agentSteps) {
    if (step.type === "model-call") continue;
    const at = timeOf(step);
    if (!Number.isNaN(at)) {
      while (queue.length > 0 && Date.parse(queue[0]?.at ?? "") <= at)
        steps.push(queue.shift() as MeteredCall);
    }
    steps.push(step);
  }
  return [...steps, ...queue];
}

/**
 * The agent's steps with each own model call replaced by the next metered call, or, when the
 * agent wrote none, the next metered call before each assistant message.
 */
function placeByPosition(
  agentSteps: readonly TrajectoryStep[],
  calls: readonly MeteredCall[],
): TrajectoryStep[] {
  const queue = [...calls];
  const anchorsOnCalls = agentSteps.some((step) => step.type === "model-call");
  const steps: TrajectoryStep[] = [];
  for (const step of agentSteps) {
    const anchor = anchorsOnCalls
      ? step.type === "model-call"
      : step.type === "message" && step.role === "assistant";
    if (anchor && queue.length > 0) steps.push(queue.shift() as MeteredCall);
    if (step.type !== "model-call") steps.push(step);
  }
  return [...steps, ...queue];
}
