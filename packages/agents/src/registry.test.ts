import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError, loadConfig, parseRunConfig, type RunConfigInput } from "@distdebug/schema";
import { repoPath } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { agentFor } from "./registry.js";

const configsDir = repoPath("configs/mini-swe-agent");

function failure(run: () => unknown): DistDebugError<unknown> {
  try {
    run();
  } catch (error) {
    if (DistDebugError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

const config = (input: Partial<RunConfigInput> & Pick<RunConfigInput, "agent">) =>
  parseRunConfig(input);

describe("agentFor", () => {
  it("loads every mini-swe-agent config, needs its key, and names the variable when it is missing", async () => {
    const files = (await readdir(configsDir)).filter((name) => name.endsWith(".yaml")).sort();
    expect(files).toEqual([
      "claude-opus-5.5.yaml",
      "gpt-5.3-codex.yaml",
      "gpt-5.4.yaml",
      "gpt-5.5.yaml",
      "gpt-6-astra.yaml",
      "local-openai-compatible.example.yaml",
    ]);
    for (const file of files) {
      const loaded = await loadConfig({ files: [join(configsDir, file)] });
      expect(loaded.agent.type).toBe("mini");
      const variable = loaded.model?.apiKeyEnv ?? "";
      expect(variable).toMatch(/^(OPENAI_API_KEY|ANTHROPIC_API_KEY|LOCAL_LLM_API_KEY)$/);
      expect(agentFor(loaded, { [variable]: "k" }).name).toBe("mini");
      const error = failure(() => agentFor(loaded, {}));
      expect(error.code).toBe("MISSING_ENV");
      expect(error.message).toContain(`environment variable ${variable} is not set`);
      expect(error.message).not.toContain("\n");
      if (!file.startsWith("local")) expect(loaded.model?.prices).toBeDefined();
    }
  });

  it("uses the provider's usual variable when the config names none", () => {
    const anthropic = config({
      agent: { type: "mini" },
      model: { provider: "anthropic", name: "m" },
    });
    expect(failure(() => agentFor(anthropic, { OPENAI_API_KEY: "x" })).message).toMatch(
      /^environment variable ANTHROPIC_API_KEY/,
    );
    expect(agentFor(anthropic, { ANTHROPIC_API_KEY: "x" }).name).toBe("mini");
  });

  it("rejects a mini agent without a model, a command agent without a command, and unknown template variables", () => {
    expect(failure(() => agentFor(config({ agent: { type: "mini" } }), {})).code).toBe(
      "INVALID_CONFIG",
    );
    expect(failure(() => agentFor(config({ agent: { type: "command" } }), {})).message).toMatch(
      /agent.command/,
    );
    const templated = config({
      agent: { type: "mini", instanceTemplate: "Fix {{incident_id}} in {{repo_dir}}" },
      model: { provider: "openai", name: "m" },
    });
    const error = failure(() => agentFor(templated, { OPENAI_API_KEY: "x" }));
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.message).toMatch(/agent.instanceTemplate uses \{\{repo_dir\}\}/);
  });

  it("needs no key for a command agent without a model, and one with a model", () => {
    const offline = config({
      agent: { type: "command", command: ["python3", "/opt/agent/run.py"] },
    });
    const agent = agentFor(offline, {});
    expect(agent.name).toBe("command");
    expect(agent.network?.(offline)).toBeUndefined();
    const online = config({
      agent: { type: "command", command: ["x"] },
      model: { provider: "openai", name: "m", apiKeyEnv: "K" },
    });
    expect(failure(() => agentFor(online, {})).message).toMatch(
      /^environment variable K is not set/,
    );
    expect(agentFor(online, { K: "v" }).network?.(online)).toBe("gateway");
  });
});
