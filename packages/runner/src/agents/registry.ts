import { DistDebugError, type RunConfig } from "@distdebug/schema";
import type { Agent } from "./agent.js";
import { baselineAgent } from "./baseline/baseline-agent.js";

/**
 * The agent a config names. `baseline` is built in and offline; the model-driven `mini` and
 * `command` agents are not in this version yet and fail early with a clear message.
 */
export function agentFor(
  config: RunConfig,
  _env: Record<string, string | undefined> = process.env,
): Agent {
  switch (config.agent.type) {
    case "baseline":
      return baselineAgent;
    default:
      throw new DistDebugError({
        code: "INVALID_CONFIG",
        message: `agent type "${config.agent.type}" is not available in this version yet; use agent.type: baseline`,
        data: { agent: config.agent.type },
      });
  }
}
