import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import {
  parseAttempt,
  parseDiagnosisScores,
  parseRunConfig,
  parseTrajectory,
  type RunConfig,
} from "@distdebug/schema";
import {
  anthropicBody,
  exampleDatasetDir,
  type FakeModelServer,
  openAiBody,
  startFakeModelServer,
  testdir,
} from "@distdebug/test-utils";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "./events.js";
import { runBenchmark } from "./run-benchmark.js";

const exampleDir = exampleDatasetDir();
const agentsDir = new URL("../fixtures/command-agents", import.meta.url).pathname;
let dataset: Dataset;
let cacheDir: string;
let server: FakeModelServer | undefined;

beforeAll(async () => {
  dataset = await loadDataset(exampleDir);
  cacheDir = await testdir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = "sk-real-secret-key-do-not-leak-42";
const BLOCKS = JSON.stringify([
  { path: "lease/lessor.go", startLine: 147, endLine: 148 },
  { path: "mvcc/store.go", startLine: 48, endLine: 50 },
]);

/** Runs one attempt of leasekv-77 under `config` with the test key; returns its results folder too. */
async function runLeasekv(config: RunConfig, onEvent?: (event: RunEvent) => void) {
  const outDir = join(await testdir(), "results");
  const result = await runBenchmark({
    config,
    dataset,
    incidents: dataset.incidents.filter((incident) => incident.id === "leasekv-77"),
    outDir,
    cacheDir,
    env: { TEST_MODEL_KEY: KEY },
    ...(onEvent ? { onEvent } : {}),
  });
  return { result, outDir };
}

const cases = [
  {
    language: "Node",
    provider: "openai" as const,
    command: ["/opt/distdebug/node", "/opt/agent/agent.mjs"],
  },
  {
    language: "Python 3",
    provider: "anthropic" as const,
    command: ["python3", "/opt/agent/agent.py"],
  },
];

describe.each(cases)("a command agent in $language", ({ provider, command }) => {
  it("calls the model through the gateway, never sees the key, and is scored with the gateway's token count", async () => {
    const usages = [
      { input: 5000, output: 60, cached: 1000 },
      { input: 900, output: 40, cached: 0 },
    ];
    let index = 0;
    server = await startFakeModelServer(() => {
      const usage = usages[index] ?? { input: 1, output: 1, cached: 0 };
      const text = index === 0 ? "looking at the lessor" : BLOCKS;
      index += 1;
      return {
        body:
          provider === "openai"
            ? openAiBody(text, usage)
            : anthropicBody(text, {
                input: usage.input - usage.cached,
                output: usage.output,
                cacheRead: usage.cached,
              }),
      };
    });
    const config = parseRunConfig({
      name: `command-${provider}`,
      // The probe sends megabytes of the sandbox's files: no cost limit, so the gateway admits it.
      agent: { type: "command", command, costLimitUsd: 0, wallTimeLimitSec: 60 },
      model: {
        provider,
        name: "fake-model",
        baseUrl: provider === "openai" ? `${server.url}/v1` : server.url,
        apiKeyEnv: "TEST_MODEL_KEY",
        prices: { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
      },
      environment: { sandbox: { readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }] } },
      run: { attempts: 1 },
    });
    const { result, outDir } = await runLeasekv(config);
    const record = result.attempts[0];
    expect(record?.error).toBeUndefined();
    expect(record?.status).toBe("succeeded");
    expect(record?.sandbox.policy.network).toBe("gateway");
    const scores = parseDiagnosisScores(
      await readFile(join(outDir, "leasekv-77/attempt-1/diagnosis_scores.json")),
    );
    expect(scores.metrics.blockCoverage).toBe(1);

    // The gateway added the key upstream; inside, the agent saw a placeholder only.
    expect(server.requests).toHaveLength(2);
    const upstreamAuth = server.requests[0]?.headers;
    expect(upstreamAuth?.authorization ?? upstreamAuth?.["x-api-key"]).toMatch(new RegExp(KEY));
    const probe = JSON.stringify(server.requests[0]?.body);
    expect(probe).toContain("DISTDEBUG_INCIDENT_ID");
    expect(probe).toContain("FILE /task/report.md");
    expect(probe).toContain("FILE /workspace/lease/lessor.go");
    expect(probe).toMatch(/PROC \d+ /);
    expect(probe).not.toContain(KEY);
    expect(probe).not.toContain("TEST_MODEL_KEY");

    // The gateway's count is what the trajectory and attempt.json report.
    const dir = join(outDir, "leasekv-77", "attempt-1");
    const trajectory = parseTrajectory(await readFile(join(dir, "trajectory.json")));
    const attempt = parseAttempt(await readFile(join(dir, "attempt.json"), "utf8"));
    const expected = {
      inputTokens: 5900,
      outputTokens: 100,
      cachedTokens: 1000,
      calls: 2,
      costUsd: ((5900 - 1000) * 3 + 1000 * 0.3 + 100 * 15) / 1e6,
    };
    expect(trajectory.usage.inputTokens).toBe(expected.inputTokens);
    expect(trajectory.usage.outputTokens).toBe(expected.outputTokens);
    expect(trajectory.usage.cachedTokens).toBe(expected.cachedTokens);
    expect(trajectory.usage.calls).toBe(2);
    expect(trajectory.usage.costUsd).toBeCloseTo(expected.costUsd, 12);
    expect(attempt.usage).toEqual(trajectory.usage);
    const calls = trajectory.steps.filter((step) => step.type === "model-call");
    expect(calls.map((step) => step.type === "model-call" && step.inputTokens)).toEqual([
      5000, 900,
    ]);
    // The agent's own trajectory is kept (messages) and its own accounting set aside.
    expect(
      trajectory.steps.some(
        (step) => step.type === "message" && step.content === "looking at the lessor",
      ),
    ).toBe(true);
    expect(trajectory.extra?.meteredBy).toBe("distdebug-gateway");
    expect(trajectory.extra?.agentReportedUsage).toBeDefined();
    expect(await readFile(join(dir, "trajectory.json"), "utf8")).not.toContain(KEY);
    expect(await readFile(join(dir, "attempt.json"), "utf8")).not.toContain(KEY);
  });
});

describe("the command agent's limits", () => {
  it("ends limit-exceeded when the gateway refuses a call over the token budget", async () => {
    server = await startFakeModelServer([
      { body: openAiBody("looking", { input: 5000, output: 10, cached: 0 }) },
    ]);
    const config = parseRunConfig({
      name: "command-budget",
      agent: {
        type: "command",
        command: ["/opt/distdebug/node", "/opt/agent/agent.mjs"],
        tokenLimit: 1000,
        wallTimeLimitSec: 60,
      },
      model: {
        provider: "openai",
        name: "fake-model",
        baseUrl: `${server.url}/v1`,
        apiKeyEnv: "TEST_MODEL_KEY",
      },
      environment: { sandbox: { readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }] } },
      run: { attempts: 1 },
    });
    const { result } = await runLeasekv(config);
    // The agent's first prompt (its probe of the sandbox) may alone use more than 1000 tokens:
    // the gateway refuses it before forwarding.
    expect(result.attempts[0]?.status).toBe("limit-exceeded");
    expect(result.attempts[0]?.error?.message).toMatch(/token limit of 1000/);
    expect(result.attempts[0]?.usage).toMatchObject({ inputTokens: 0, calls: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it("forwards only the parallel calls that fit the cost limit and never ends succeeded", async () => {
    // Each call could cost about $0.13 (50 output tokens at $2000/M, ~30 prompt tokens at
    // $1000/M) and each reply costs $0.10: with $0.20, one call fits, the other 29 are refused.
    server = await startFakeModelServer(() => ({
      body: openAiBody("x", { input: 20, output: 40, cached: 0 }),
      delayMs: 200,
    }));
    const config = parseRunConfig({
      name: "command-parallel",
      agent: {
        type: "command",
        command: ["/opt/distdebug/node", "/opt/agent/parallel.mjs"],
        costLimitUsd: 0.2,
        wallTimeLimitSec: 60,
      },
      model: {
        provider: "openai",
        name: "fake-model",
        baseUrl: `${server.url}/v1`,
        apiKeyEnv: "TEST_MODEL_KEY",
        prices: { inputPerMillion: 1000, outputPerMillion: 2000 },
      },
      environment: { sandbox: { readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }] } },
      run: { attempts: 1 },
    });
    const { result } = await runLeasekv(config);
    const attempt = result.attempts[0];
    expect(attempt?.status).toBe("limit-exceeded");
    expect(attempt?.error?.message).toMatch(/cost limit of \$0.2 leaves no room/);
    expect(server.requests).toHaveLength(1);
    expect(attempt?.usage.calls).toBe(1);
    expect(attempt?.usage.costUsd).toBeLessThanOrEqual(0.2);
  });
});

/** A config running leak.mjs against `server`, which echoes the key; `env` adds to the sandbox's. */
function leakConfig(url: string, env: Record<string, string> = {}): RunConfig {
  return parseRunConfig({
    name: "command-leak",
    agent: {
      type: "command",
      // ${VAR} in a command argument and in the sandbox's env stays literal text.
      command: ["/opt/distdebug/node", "/opt/agent/leak.mjs", "${TEST_MODEL_KEY}"],
      wallTimeLimitSec: 60,
    },
    model: {
      provider: "openai",
      name: "fake-model",
      baseUrl: `${url}/v1`,
      apiKeyEnv: "TEST_MODEL_KEY",
    },
    environment: {
      sandbox: {
        readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }],
        env: { LEAK: "${TEST_MODEL_KEY}", ...env },
      },
    },
    run: { attempts: 1 },
  });
}

/** A provider (or a proxy) that echoes the key it was sent: the agent receives the real key. */
function startEchoingServer() {
  return startFakeModelServer((request) => ({
    body: openAiBody(`your key: ${String(request.headers.authorization)}`, {
      input: 10,
      output: 10,
      cached: 0,
    }),
  }));
}

describe("a command agent's /output", () => {
  it("left too full for another copy of its trajectory does not make the attempt an infra-error", {
    timeout: 120_000,
  }, async () => {
    server = await startFakeModelServer(() => ({
      body: openAiBody("unused", { input: 1, output: 1, cached: 0 }),
    }));
    const config = parseRunConfig({
      name: "full-output",
      agent: {
        type: "command",
        command: ["/opt/distdebug/node", "/opt/agent/full-output.mjs"],
        wallTimeLimitSec: 60,
      },
      model: {
        provider: "openai",
        name: "m",
        baseUrl: `${server.url}/v1`,
        apiKeyEnv: "TEST_MODEL_KEY",
      },
      environment: { sandbox: { readOnlyBinds: [{ source: agentsDir, target: "/opt/agent" }] } },
      run: { attempts: 1 },
    });
    const { result, outDir } = await runLeasekv(config);
    const record = result.attempts[0];
    expect(record?.error).toBeUndefined();
    expect(record?.status).toBe("succeeded");
    const trajectory = parseTrajectory(
      await readFile(join(outDir, "leasekv-77", "attempt-1", "trajectory.json"), "utf8"),
    );
    expect(trajectory.agent.name).toBe("full-output");
  });
});

describe("the command agent's secrets", () => {
  it("keeps the key out of the attempt's record and the run's events when the failing program prints it", async () => {
    server = await startEchoingServer();
    const events: RunEvent[] = [];
    const { result } = await runLeasekv(leakConfig(server.url, { LEAK_EXIT: "3" }), (event) =>
      events.push(event),
    );
    const record = result.attempts[0];
    expect(record?.status).toBe("agent-error");
    expect(record?.error?.message).toContain("your key: Bearer [REDACTED]");
    expect(JSON.stringify(result)).not.toContain(KEY);
    const end = events.find((event) => event.type === "attempt-end");
    expect(end).toBeDefined();
    expect(JSON.stringify(end)).not.toContain(KEY);
  });

  it("keeps the key out of every file of the results folder, even when the agent gets hold of it", async () => {
    server = await startEchoingServer();
    const config = leakConfig(server.url);
    const { result, outDir } = await runLeasekv(config);
    expect(result.attempts[0]?.status).toBe("succeeded");
    const files = (await readdir(outDir, { recursive: true, withFileTypes: true })).filter(
      (entry) => entry.isFile(),
    );
    expect(files.length).toBeGreaterThan(3);
    for (const file of files)
      expect(await readFile(join(file.parentPath, file.name), "utf8"), file.name).not.toContain(
        KEY,
      );
    const trajectory = await readFile(
      join(outDir, "leasekv-77", "attempt-1", "trajectory.json"),
      "utf8",
    );
    expect(trajectory).toContain("your key: Bearer [REDACTED]");
    expect(trajectory).toContain("ARGV ${TEST_MODEL_KEY}");
    // attempt.json's hashes are those of the redacted files.
    const attempt = parseAttempt(
      await readFile(join(outDir, "leasekv-77", "attempt-1", "attempt.json"), "utf8"),
    );
    expect(attempt.outputs?.["trajectory.json"]).toBe(
      createHash("sha256").update(trajectory).digest("hex"),
    );
  });
});
