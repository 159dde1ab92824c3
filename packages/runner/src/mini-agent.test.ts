import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SUBMIT_SENTINEL } from "@distdebug/agents";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import {
  parseAttempt,
  parseDiagnosisScores,
  parseRunConfig,
  parseTrajectory,
  type RunConfigInput,
} from "@distdebug/schema";
import {
  anthropicBody,
  exampleDatasetDir,
  type FakeModelServer,
  type FakeRequest,
  openAiBody,
  startFakeModelServer,
  testdir,
} from "@distdebug/test-utils";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "./events.js";
import { runBenchmark } from "./run-benchmark.js";

const exampleDir = exampleDatasetDir();
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

const KEY = "sk-mini-test-secret-0123456789";
const bash = (command: string) => `THOUGHT: next step.\n\n\`\`\`bash\n${command}\n\`\`\``;
const DIAGNOSIS = `cat > /output/diagnosis.json <<'EOF'
{"format": "distdebug.diagnosis/1", "incidentId": "leasekv-77", "blocks": [
  {"path": "lease/lessor.go", "startLine": 147, "endLine": 148, "reason": "keys read before the delete txn"},
  {"path": "mvcc/store.go", "startLine": 48, "endLine": 50, "reason": "lease check outside the txn"}]}
EOF`;

/** The text of the conversation's messages (either protocol). */
function messagesOf(request: FakeRequest): { role: string; content: string }[] {
  return (request.body as { messages?: { role: string; content: string }[] }).messages ?? [];
}

function config(
  provider: "openai" | "anthropic",
  url: string,
  agent: Record<string, unknown> = {},
  extra: Partial<RunConfigInput> = {},
) {
  return parseRunConfig({
    name: `mini-${provider}`,
    agent: { type: "mini", wallTimeLimitSec: 60, ...agent },
    model: {
      provider,
      name: "fake-model",
      baseUrl: provider === "openai" ? `${url}/v1` : url,
      apiKeyEnv: "TEST_MODEL_KEY",
      prices: { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5 },
      maxRetries: 2,
    },
    run: { attempts: 1 },
    ...extra,
  });
}

async function runOne(configValue: ReturnType<typeof config>) {
  const outDir = join(await testdir(), "results");
  const result = await runBenchmark({
    config: configValue,
    dataset,
    incidents: dataset.incidents.filter((incident) => incident.id === "leasekv-77"),
    outDir,
    cacheDir,
    env: { TEST_MODEL_KEY: KEY },
  });
  const dir = join(outDir, "leasekv-77", "attempt-1");
  const record = result.attempts[0];
  const trajectory = parseTrajectory(await readFile(join(dir, "trajectory.json")));
  const scores = await readFile(join(dir, "diagnosis_scores.json")).catch(() => undefined);
  return {
    record,
    trajectory,
    dir,
    attemptFile: parseAttempt(await readFile(join(dir, "attempt.json"), "utf8")),
    metrics: scores && parseDiagnosisScores(scores).metrics,
  };
}

describe.each(["openai", "anthropic"] as const)("the mini agent over %s", (provider) => {
  const body = (text: string, input: number) =>
    provider === "openai"
      ? openAiBody(text, { input, output: 40, cached: 10 })
      : anthropicBody(text, { input: input - 10, output: 40, cacheRead: 10 });

  it("explores, recovers from a format error, writes the diagnosis, submits and is scored", async () => {
    const script = [
      bash(
        "cat /task/task.json && head -c 300 /task/report.md && echo TEST_MODEL_KEY=$TEST_MODEL_KEY && env | wc -l",
      ),
      "I am sure it is the lessor, no command needed.",
      bash(`grep -n "keys := l.Keys()" lease/lessor.go && seq 1 5000`),
      bash(DIAGNOSIS),
      bash(`echo ${SUBMIT_SENTINEL}`),
    ];
    let replies = 0;
    let rateLimited = false;
    server = await startFakeModelServer((request) => {
      // One 429 before the first answer: the client retries and the trajectory counts one call.
      if (!rateLimited) {
        rateLimited = true;
        return {
          status: 429,
          body: { error: { message: "rate limited" } },
          headers: { "retry-after-ms": "5" },
        };
      }
      const text = script[replies] ?? bash("true");
      replies += 1;
      return { body: body(text, 1000 + 100 * messagesOf(request).length) };
    });
    const { record, trajectory, attemptFile, metrics } = await runOne(
      config(provider, server.url, {}, { environment: { observationChars: 2000 } }),
    );
    expect(record?.status).toBe("succeeded");
    expect(record?.sandbox.backend).toBe("bubblewrap");
    expect(metrics?.blockCoverage).toBe(1);
    expect(attemptFile.usage).toEqual(trajectory.usage);

    // Every step: 5 model calls, 4 commands, the format error answered, observations cut.
    const calls = trajectory.steps.filter((step) => step.type === "model-call");
    const commands = trajectory.steps.filter((step) => step.type === "command");
    expect(calls).toHaveLength(5);
    expect(commands.map((step) => step.command)).toEqual(
      [script[0], script[2], script[3], script[4]].map((text) =>
        text?.split("```bash\n")[1]?.replace(/\n```$/, ""),
      ),
    );
    // The agent is shown an opaque task id, never the incident id (THREATS.md section 8).
    const taskId = /"id": "(task-[0-9a-f]{16})"/.exec(commands[0]?.output ?? "")?.[1];
    expect(taskId).toBeDefined();
    expect(commands[0]?.output).not.toContain('"id": "leasekv-77"');
    expect(commands[0]?.output).toContain("TEST_MODEL_KEY=\n");
    expect(commands[1]?.output).toContain("keys := l.Keys()");
    expect(commands[1]?.output).toContain("\n5000");
    expect(
      commands.every((step) => step.exitCode === 0 && typeof step.durationMs === "number"),
    ).toBe(true);
    const userMessages = trajectory.steps
      .filter((step) => step.type === "message" && step.role === "user")
      .map((step) => (step as { content: string }).content);
    // (The example report's own title names its issue key; the prompt's id is the task's.)
    expect(userMessages[0]).toContain(`incident ${taskId}:`);
    expect(userMessages[2]).toMatch(/EXACTLY ONE action in triple backticks, found 0 actions/);
    expect(userMessages[3]).toMatch(/<warning>The output was \d+ characters/);
    expect(userMessages[3]?.length).toBeLessThan(2400);
    // Tokens and cost: each call's figures add up to the total; the cost follows the price table.
    const sum = (field: "inputTokens" | "outputTokens" | "cachedTokens") =>
      calls.reduce((total, step) => total + (step.type === "model-call" ? step[field] : 0), 0);
    expect(trajectory.usage).toMatchObject({
      inputTokens: sum("inputTokens"),
      outputTokens: 200,
      cachedTokens: 50,
      calls: 5,
    });
    const expectedCost = ((sum("inputTokens") - 50) * 2 + 50 * 0.5 + 200 * 8) / 1e6;
    expect(trajectory.usage.costUsd).toBeCloseTo(expectedCost, 12);
    expect(
      calls.every(
        (step) => step.type === "model-call" && step.costUsd !== null && step.costUsd > 0,
      ),
    ).toBe(true);
    expect(trajectory.exitStatus).toBe("submitted");
    expect(JSON.stringify(trajectory)).not.toContain(KEY);
    expect(trajectory.model).toEqual({ provider, name: "fake-model" });
    // The 429 was retried: six requests for five calls.
    expect(server.requests).toHaveLength(6);
    const auth = server.requests[0]?.headers;
    expect(auth?.authorization ?? auth?.["x-api-key"]).toMatch(new RegExp(KEY));
  });
});

describe("the mini agent's limits", () => {
  it("ends at the step limit with limit-exceeded", async () => {
    server = await startFakeModelServer(() => ({ body: openAiBody(bash("ls")) }));
    const { record, trajectory, metrics } = await runOne(
      config("openai", server.url, { stepLimit: 3 }),
    );
    expect(record?.status).toBe("limit-exceeded");
    expect(record?.error?.message).toMatch(/step limit of 3/);
    expect(trajectory.steps.filter((step) => step.type === "model-call")).toHaveLength(3);
    expect(trajectory.extra?.limit).toBe("step");
    expect(metrics?.blockCoverage).toBe(0);
  });

  it("ends at the cost limit with limit-exceeded", async () => {
    server = await startFakeModelServer(() => ({
      body: openAiBody(bash("ls"), { input: 100_000, output: 1000, cached: 0 }),
    }));
    // Each call costs 0.2 + 0.008 dollars; the limit of 0.5 is passed after the third.
    const { record, trajectory } = await runOne(
      config("openai", server.url, { costLimitUsd: 0.5 }),
    );
    expect(record?.status).toBe("limit-exceeded");
    expect(record?.error?.message).toMatch(/cost limit of \$0.5/);
    expect(trajectory.usage.calls).toBe(3);
    expect(trajectory.extra?.limit).toBe("cost");
  });

  it("ends at the wall-time limit with limit-exceeded, killing the running command", async () => {
    // 5 s, not less: on a loaded machine the first model call and the sandbox's start must fit
    // before the limit, or no command runs at all (this test flaked at 2 s).
    server = await startFakeModelServer(() => ({ body: openAiBody(bash("sleep 300")) }));
    const { record, trajectory } = await runOne(
      config("openai", server.url, { wallTimeLimitSec: 5 }),
    );
    expect(record?.status).toBe("limit-exceeded");
    expect(record?.error?.message).toMatch(/wall-time limit of 5 s/);
    expect(trajectory.steps.find((step) => step.type === "command")).toMatchObject({
      timedOut: true,
      exitCode: null,
    });
  });

  it("ends agent-error, not infra-error, when the model leaves /output/trajectory.json a directory", async () => {
    // A reroll attempt: an infra-error would be rerun on resume; the agent's doing is its error.
    const script = [
      bash(DIAGNOSIS),
      bash("mkdir -p /output/trajectory.json/x"),
      bash(`echo ${SUBMIT_SENTINEL}`),
    ];
    let replies = 0;
    server = await startFakeModelServer(() => ({
      body: openAiBody(script[replies++] ?? bash("true")),
    }));
    const { record, trajectory, metrics } = await runOne(config("openai", server.url));
    expect(record?.status).toBe("agent-error");
    expect(record?.error?.message).toBe("/output/trajectory.json: is a directory, not a file");
    expect(trajectory.agent.name).toBe("mini");
    expect(metrics?.blockCoverage).toBe(0);
  });

  it("ends with agent-error when the model keeps failing", async () => {
    server = await startFakeModelServer(() => ({ body: "{malformed" }));
    const { record, trajectory } = await runOne(config("openai", server.url));
    expect(record?.status).toBe("agent-error");
    expect(record?.error?.message).toMatch(/malformed reply/);
    expect(trajectory.steps.find((step) => step.type === "model-call")).toMatchObject({
      error: expect.stringMatching(/malformed/),
    });
  });
});

describe("the mini agent's events", () => {
  it("never carry the key, even in a command the model wrote after a provider echoed it", async () => {
    // A provider (or a proxy) that echoes the key: the model's next command quotes it.
    const script = (key: string) => [
      bash(`echo ${key}`),
      bash(DIAGNOSIS),
      bash(`echo ${SUBMIT_SENTINEL}`),
    ];
    let replies = 0;
    server = await startFakeModelServer((request) => {
      const key = String(request.headers.authorization).replace(/^Bearer /, "");
      const text = script(key)[replies] ?? bash("true");
      replies += 1;
      return { body: openAiBody(text, { input: 100, output: 10, cached: 0 }) };
    });
    const events: RunEvent[] = [];
    const result = await runBenchmark({
      config: config("openai", server.url),
      dataset,
      incidents: dataset.incidents.filter((incident) => incident.id === "leasekv-77"),
      outDir: join(await testdir(), "results"),
      cacheDir,
      env: { TEST_MODEL_KEY: KEY },
      onEvent: (event) => events.push(event),
    });
    expect(result.attempts[0]?.status).toBe("succeeded");
    expect(JSON.stringify(events)).toContain("echo [REDACTED]");
    expect(JSON.stringify(events)).not.toContain(KEY);
  });
});
