import type { Trajectory, TrajectoryStep, Usage } from "@distdebug/schema";
import type { MeteredCall } from "../model/usage-meter.js";

/**
 * Merges an agent's own trajectory with the gateway's metered calls. The agent's steps are
 * kept in order, except its own `model-call` steps, which are replaced by the gateway's
 * measured ones (kept under `extra.agentModelCalls` for comparison), placed by time where
 * steps carry `at`. `usage` becomes the gateway's; the agent's claim is kept as
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
  const queue = [...calls];
  const steps: TrajectoryStep[] = [];
  for (const step of agent.steps) {
    if (step.type === "model-call") continue;
    const at = step.at === undefined ? Number.NaN : Date.parse(step.at);
    if (!Number.isNaN(at)) {
      while (queue.length > 0 && Date.parse(queue[0]?.at ?? "") <= at)
        steps.push(queue.shift() as MeteredCall);
    }
    steps.push(step);
  }
  steps.push(...queue);
  return {
    ...agent,
    usage,
    steps,
    extra: {
      ...agent.extra,
      meteredBy: "distdebug-gateway",
      agentReportedUsage: agent.usage,
      ...(ownCalls.length > 0 ? { agentModelCalls: ownCalls } : {}),
    },
  };
}
