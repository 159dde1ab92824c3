import { parseRunConfig } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import { GATEWAY_PLACEHOLDER_KEY } from "../gateway/forwarder.js";
import { commandAgentEnv } from "./command-agent.js";

const context = (config: unknown) => ({
  incidentId: "leasekv-77",
  taskId: "task-0123456789abcdef",
  attempt: 2,
  deadline: 1_800_000_000_000,
  config: parseRunConfig(config),
});

describe("commandAgentEnv", () => {
  it("tells the program its folders, opaque task id (never the incident id), deadline and every limit of the config", () => {
    const env = commandAgentEnv(
      context({
        agent: {
          type: "command",
          command: ["python3", "/opt/agent/agent.py"],
          stepLimit: 40,
          costLimitUsd: 0.5,
          tokenLimit: 90_000,
          wallTimeLimitSec: 900,
        },
      }),
    );
    expect(env).toMatchObject({
      DISTDEBUG_TASK: "/task",
      DISTDEBUG_WORKSPACE: "/workspace",
      DISTDEBUG_OUTPUT: "/output",
      DISTDEBUG_INCIDENT_ID: "task-0123456789abcdef",
      DISTDEBUG_ATTEMPT: "2",
      DISTDEBUG_DEADLINE_MS: "1800000000000",
      DISTDEBUG_STEP_LIMIT: "40",
      DISTDEBUG_COST_LIMIT_USD: "0.5",
      DISTDEBUG_TOKEN_LIMIT: "90000",
      DISTDEBUG_WALL_TIME_LIMIT_SEC: "900",
    });
    expect(env.DISTDEBUG_MODEL_NAME).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain("leasekv-77");
  });

  it("with a model: its provider and name, and only the placeholder key", () => {
    const env = commandAgentEnv(
      context({
        agent: { type: "command", command: ["/opt/agent/run"] },
        model: { provider: "anthropic", name: "claude-x", apiKeyEnv: "MY_KEY" },
      }),
    );
    expect(env).toMatchObject({
      DISTDEBUG_MODEL_PROVIDER: "anthropic",
      DISTDEBUG_MODEL_NAME: "claude-x",
      OPENAI_API_KEY: GATEWAY_PLACEHOLDER_KEY,
      ANTHROPIC_API_KEY: GATEWAY_PLACEHOLDER_KEY,
      DISTDEBUG_TOKEN_LIMIT: "0",
    });
    expect(Object.values(env)).not.toContain("MY_KEY");
  });
});
