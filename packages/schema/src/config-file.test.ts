import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { applyOverrides, loadConfig, resolveConfigEnv } from "./config-file.js";
import { DistDebugError } from "./errors.js";

const base = `
agent:
  type: mini
  stepLimit: 250
model:
  provider: openai
  name: gpt-5.4
  baseUrl: \${OPENAI_BASE_URL:-https://api.openai.com/v1}
  apiKeyEnv: OPENAI_API_KEY
  parameters:
    temperature: 0
    extra_headers: { X-Team: "\${TEAM}" }
run:
  attempts: 3
`;

describe("loadConfig", () => {
  it("reads a relative bind source against its config file's folder, and an override's against the working directory", async () => {
    const dir = await testdir({
      "configs/command/agent.yaml":
        "agent:\n  type: command\n  command: [python3, /opt/agent/agent.py]\nenvironment:\n  sandbox:\n    readOnlyBinds:\n      - { source: ../../examples/agent, target: /opt/agent }\n      - { source: /usr/lib/jvm }\n",
    });
    const config = await loadConfig({ files: [`${dir}/configs/command/agent.yaml`] });
    expect(config.environment.sandbox.readOnlyBinds).toEqual([
      { source: `${dir}/examples/agent`, target: "/opt/agent" },
      { source: "/usr/lib/jvm" },
    ]);
    const overridden = await loadConfig({
      files: [`${dir}/configs/command/agent.yaml`],
      overrides: ["environment.sandbox.readOnlyBinds=[{source: tools, target: /opt/tools}]"],
    });
    expect(overridden.environment.sandbox.readOnlyBinds).toEqual([
      { source: `${process.cwd()}/tools`, target: "/opt/tools" },
    ]);
  });

  it("merges files (later wins), applies overrides, names the config after its path", async () => {
    const dir = await testdir({
      "configs/mini-swe-agent/gpt-5.4.yaml": base,
      "local.yaml": "agent:\n  stepLimit: 40\nrun:\n  concurrency: 2\n",
    });
    const config = await loadConfig({
      files: [`${dir}/configs/mini-swe-agent/gpt-5.4.yaml`, `${dir}/local.yaml`],
      overrides: ["run.attempts=1", "model.parameters.temperature=0.5"],
    });
    expect(config.name).toBe("local");
    expect(config.agent.stepLimit).toBe(40);
    expect(config.run).toEqual({ attempts: 1, concurrency: 2, seed: 0 });
    expect(config.model?.parameters.temperature).toBe(0.5);
    // ${ENV} references are kept as written: resolved only at run time.
    expect(config.model?.baseUrl).toBe("${OPENAI_BASE_URL:-https://api.openai.com/v1}");
    const single = await loadConfig({ files: [`${dir}/configs/mini-swe-agent/gpt-5.4.yaml`] });
    expect(single.name).toBe("mini-swe-agent-gpt-5.4");
  });

  it("resolves ${VAR} only in model.baseUrl, in memory; command arguments, templates and parameters stay literal", async () => {
    const dir = await testdir({
      "c.yaml": [
        "agent:",
        "  type: command",
        "  command: ['python3', '/opt/agent.py', '--key', '${OPENAI_API_KEY}']",
        "  instanceTemplate: 'the key is ${OPENAI_API_KEY}'",
        "model:",
        "  provider: openai",
        "  name: m",
        "  baseUrl: ${BASE:-http://localhost}",
        "  parameters: { extra_headers: { X-Key: '${OPENAI_API_KEY}' } }",
        "environment: { sandbox: { env: { LEAK: '${OPENAI_API_KEY}' } } }",
      ].join("\n"),
    });
    const config = await loadConfig({ files: [`${dir}/c.yaml`] });
    const env = { OPENAI_API_KEY: "sk-secret", BASE: "https://proxy.example/v1" };
    const resolved = resolveConfigEnv(config, env);
    expect(resolved.model?.baseUrl).toBe("https://proxy.example/v1");
    expect(resolveConfigEnv(config, {}).model?.baseUrl).toBe("http://localhost");
    expect(JSON.stringify(resolved)).not.toContain("sk-secret");
    expect(resolved.agent.command).toEqual([
      "python3",
      "/opt/agent.py",
      "--key",
      "${OPENAI_API_KEY}",
    ]);
    expect(config.model?.baseUrl).toBe("${BASE:-http://localhost}");
    try {
      resolveConfigEnv({ model: { baseUrl: "${NOPE}" } }, {});
      expect.unreachable();
    } catch (error) {
      expect(DistDebugError.isInstance(error) && error.code).toBe("MISSING_ENV");
      expect((error as Error).message).toBe(
        "environment variable NOPE is not set (needed by the config at $.model.baseUrl)",
      );
    }
  });

  it("gives clear errors for bad YAML, a bad field and a missing file", async () => {
    const dir = await testdir({
      "bad.yaml": "agent: [unclosed\n",
      "field.yaml": "agent:\n  type: gpt\n",
    });
    await expect(loadConfig({ files: [`${dir}/bad.yaml`] })).rejects.toThrow(
      /bad\.yaml: not valid YAML at line 1, column 8: the \[ opened here has no \]/,
    );
    await expect(loadConfig({ files: [`${dir}/field.yaml`] })).rejects.toThrow(
      /\$\.agent\.type: expected one of "baseline", "mini", "command", found the string "gpt"/,
    );
    await expect(loadConfig({ files: [`${dir}/none.yaml`] })).rejects.toThrow(
      /none\.yaml: no such config file/,
    );
  });

  it("points a YAML error at the line where the unclosed quote or bracket opens, with a code frame", async () => {
    const dir = await testdir({
      "quote.yaml": 'agent:\n  type: "mini\nrun:\n  attempts: 3\n',
      "flow.yaml": "agent:\n  type: mini\n  command: [python3, a.py\nrun:\n  attempts: 3\n",
      "indent.yaml": "agent:\n  type: mini\n bad: 1\n",
    });
    const message = async (name: string) =>
      loadConfig({ files: [`${dir}/${name}`] }).then(
        () => expect.unreachable(),
        (error: Error) => error.message.replace(`${dir}/`, ""),
      );
    expect(await message("quote.yaml")).toBe(
      [
        'quote.yaml: not valid YAML at line 2, column 9: the " opened here is never closed (Missing closing "quote)',
        "  1 | agent:",
        '> 2 |   type: "mini',
        "    |         ^",
      ].join("\n"),
    );
    expect(await message("flow.yaml")).toMatch(
      /^flow\.yaml: not valid YAML at line 3, column 12: the \[ opened here has no \].*\n {2}1 \| agent:\n {2}2 \| {3}type: mini\n> 3 \| {3}command: \[python3, a\.py\n {4}\| {12}\^$/,
    );
    expect(await message("indent.yaml")).toMatch(
      /^indent\.yaml: not valid YAML at line 3, column 1: /,
    );
  });

  it("rejects unknown keys with their JSON path and a did-you-mean, from files and from --set", async () => {
    const dir = await testdir({
      "typo.yaml": [
        "agent:",
        "  type: mini",
        "  wallTimeLimtSec: 60",
        "enviroment:",
        "  observationChars: 100",
        "run: {attempt: 1}",
      ].join("\n"),
      "ok.yaml": "agent:\n  type: baseline\n",
    });
    const error = await loadConfig({ files: [`${dir}/typo.yaml`] }).catch((caught) => caught);
    expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_FILE");
    expect(error.data.issues).toEqual([
      {
        path: "$.agent.wallTimeLimtSec",
        expected: 'a known key (did you mean "wallTimeLimitSec"?)',
        found: 'the unknown key "wallTimeLimtSec"',
      },
      {
        path: "$.run.attempt",
        expected: 'a known key (did you mean "attempts"?)',
        found: 'the unknown key "attempt"',
      },
      {
        path: "$.enviroment",
        expected: 'a known key (did you mean "environment"?)',
        found: 'the unknown key "enviroment"',
      },
    ]);
    expect(error.message).toMatch(/typo\.yaml: not a valid run config/);
    const set = await loadConfig({
      files: [`${dir}/ok.yaml`],
      overrides: ["agent.stepLimt=3"],
    }).catch((caught) => caught);
    expect(set.message).toContain(
      `${dir}/ok.yaml + --set agent.stepLimt=3: not a valid run config`,
    );
    expect(set.message).toContain(
      '$.agent.stepLimt: expected a known key (did you mean "stepLimit"?), found the unknown key "stepLimt"',
    );
  });

  it("rejects an override without =", () => {
    expect(() => applyOverrides({}, ["run.attempts"])).toThrow(/expected key.path=value/);
  });
});
