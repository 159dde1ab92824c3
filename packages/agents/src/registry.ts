import { DistDebugError, type RunConfig } from "@distdebug/schema";
import type { Agent } from "./agent.js";
import { baselineAgent } from "./baseline/baseline-agent.js";
import { createCommandAgent } from "./command/command-agent.js";
import { createMiniAgent } from "./mini/mini-agent.js";
import { checkTemplates } from "./mini/templates.js";
import { resolveApiKey } from "./model/api-key.js";
import { mockModelFor } from "./model/mock-model.js";

/**
 * The agent a config names: `baseline` (offline), `mini` (the built-in model loop) or
 * `command` (your program, with the model behind the metering gateway). Checks everything
 * that can fail before a run writes anything: a model agent's API key must be set in `env`
 * under `model.apiKeyEnv` (default `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` by provider), else
 * `MISSING_ENV` with a one-line message naming the variable; a missing model section,
 * command, or an unknown template variable is `INVALID_CONFIG`.
 *
 * @example
 * ```ts
 * const agent = agentFor(config, process.env); // throws MISSING_ENV: environment variable OPENAI_API_KEY is not set ...
 * ```
 */
export function agentFor(
  config: RunConfig,
  env: Record<string, string | undefined> = process.env,
): Agent {
  // A mock model's script is read now: a bad one is one error before any attempt.
  if (config.agent.type !== "baseline") mockModelFor(config.model);
  switch (config.agent.type) {
    case "baseline":
      return baselineAgent;
    case "mini": {
      if (!config.model)
        throw new DistDebugError({
          code: "INVALID_CONFIG",
          message:
            "agent.type mini needs a model section (provider, name, apiKeyEnv); see configs/mini-swe-agent/",
        });
      checkTemplates(config.agent);
      return createMiniAgent({ apiKey: resolveApiKey(config.model, env) });
    }
    case "command": {
      if (!config.agent.command || config.agent.command.length === 0)
        throw new DistDebugError({
          code: "INVALID_CONFIG",
          message:
            "agent.type command needs agent.command: the program and its arguments, for example [python3, /opt/agent/run.py]",
        });
      return createCommandAgent(config.model ? { apiKey: resolveApiKey(config.model, env) } : {});
    }
    default:
      throw new DistDebugError({
        code: "INVALID_CONFIG",
        message: `unknown agent type "${config.agent.type}"; expected baseline, mini or command`,
        data: { agent: config.agent.type },
      });
  }
}
