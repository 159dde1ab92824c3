import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAttempt, parseTrajectory, type RunConfigInput } from "@distdebug/schema";
import { readTarGz } from "@distdebug/submission";
import {
  anthropicBody,
  type FakeModelServer,
  type FakeReply,
  type FakeRequest,
  openAiBody,
  startFakeModelServer,
  testdir,
} from "@distdebug/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

/**
 * The metering attacks of issue 26 (THREATS.md section 2), each played by a command agent
 * (fixtures/metering-agents/attack.mjs) through the real `distdebug run` with bubblewrap, with
 * a loopback HTTP server standing in for the provider.
 */

const KEY = "sk-metering-attack-secret";
const agentDir = join(repoRoot, "packages/cli/fixtures/metering-agents");
const dataset = join(repoRoot, "examples/dataset");
let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A command config running `attack` with `model` (when given) against the fake provider. */
function attackConfig(attack: string, model?: RunConfigInput["model"], attempts = 1) {
  return {
    name: `metering-${attack}`,
    agent: {
      type: "command",
      command: ["/opt/metering/node", "/opt/metering/agent/attack.mjs", attack],
      wallTimeLimitSec: 120,
    },
    ...(model ? { model: { apiKeyEnv: "TEST_MODEL_KEY", ...model } } : {}),
    environment: {
      sandbox: {
        readOnlyBinds: [
          { source: process.execPath, target: "/opt/metering/node" },
          { source: agentDir, target: "/opt/metering/agent" },
        ],
      },
    },
    // The attempts of one incident one after the other (the cache channel needs an order).
    run: { attempts, concurrency: attempts > 1 ? 1 : 2 },
  } satisfies RunConfigInput;
}

/** `distdebug <args>` in `work`; fails the test with the CLI's output when it exits non-zero. */
async function cli(work: string, args: string[]) {
  const io = captureIO({ cwd: work, env: { HOME: work, TEST_MODEL_KEY: KEY } });
  const code = await runCli(args, io);
  expect(code, `${io.out()}${io.err()}`).toBe(0);
}

/**
 * Runs `config` through `distdebug run` on leasekv-77 (or the whole example dataset);
 * returns the work and results folders.
 */
async function runAttack(config: RunConfigInput, incidents: "leasekv-77" | "all" = "leasekv-77") {
  const work = await testdir();
  // JSON is YAML.
  await writeFile(join(work, "attack.yaml"), JSON.stringify(config));
  await cli(work, [
    "run",
    "--config",
    "attack.yaml",
    "--dataset",
    dataset,
    ...(incidents === "all" ? [] : ["--bug", incidents]),
    "--out",
    "results",
    "--cache-dir",
    "cache",
  ]);
  return { work, results: join(work, "results") };
}

async function attemptFiles(results: string, attempt = 1) {
  const dir = join(results, "leasekv-77", `attempt-${attempt}`);
  return {
    attempt: parseAttempt(await readFile(join(dir, "attempt.json"), "utf8")),
    trajectory: parseTrajectory(await readFile(join(dir, "trajectory.json"))),
  };
}

/** The agent's own notes (its message steps). */
const notes = (trajectory: { steps: { type: string; content?: string }[] }) =>
  trajectory.steps.filter((step) => step.type === "message").map((step) => step.content);

/**
 * A reply the provider sends after 10 minutes; the configs below give up after 2 s (long
 * enough for the request to reach the provider on a loaded machine).
 */
const LATE: FakeReply = {
  body: openAiBody("late", { input: 1, output: 1, cached: 0 }),
  delayMs: 600_000,
};

const openAiModel = (url: string, extra: Record<string, unknown> = {}) => ({
  provider: "openai" as const,
  name: "scripted-model",
  baseUrl: `${url}/v1`,
  prices: { inputPerMillion: 10, outputPerMillion: 20 },
  ...extra,
});

describe("metering attacks through distdebug run", () => {
  it("an Anthropic 1-hour cache write billed $1.00 is metered $1.00, not $0.50 as plain input", {
    timeout: 120_000,
  }, async () => {
    // 50,000 tokens written for 1 hour at 2 x $10/M: a $1.00 bill.
    const body = anthropicBody("ok", { input: 0, output: 0, cacheRead: 0, cacheWrite1h: 50_000 });
    server = await startFakeModelServer([{ body }]);
    const { results } = await runAttack(
      attackConfig("cache-write", {
        provider: "anthropic",
        name: "scripted-model",
        baseUrl: server.url,
        prices: { inputPerMillion: 10, outputPerMillion: 20 },
      }),
    );
    const { attempt, trajectory } = await attemptFiles(results);
    expect(notes(trajectory)).toEqual(["status 200"]);
    expect(attempt.usage.costUsd).toBeCloseTo(1, 10);
  });

  it("a call that outlasts timeoutMs is sent once and metered at its admitted worst case", {
    timeout: 120_000,
  }, async () => {
    server = await startFakeModelServer([LATE]);
    const { results } = await runAttack(
      attackConfig("timeout", openAiModel(server.url, { timeoutMs: 2_000, maxRetries: 3 })),
    );
    const { attempt, trajectory } = await attemptFiles(results);
    expect(server.requests).toHaveLength(1);
    expect(attempt.usage).toMatchObject({ calls: 1, outputTokens: 1_000 });
    expect(notes(trajectory)).toEqual(["status 504"]);
    expect(attempt.usage.inputTokens).toBeGreaterThan(0);
    // At least the 1,000 output tokens the call may have generated.
    expect(attempt.usage.costUsd).toBeGreaterThanOrEqual((1_000 * 20) / 1e6);
  });

  it("the mini agent's call that outlasts timeoutMs is sent once and metered at its worst case", {
    timeout: 120_000,
  }, async () => {
    server = await startFakeModelServer([LATE]);
    const { results } = await runAttack({
      name: "metering-mini-timeout",
      agent: { type: "mini", wallTimeLimitSec: 120 },
      model: {
        ...openAiModel(server.url, { timeoutMs: 2_000, maxRetries: 3 }),
        apiKeyEnv: "TEST_MODEL_KEY",
        parameters: { max_tokens: 1_000 },
      },
      run: { attempts: 1 },
    });
    const { attempt } = await attemptFiles(results);
    expect(server.requests).toHaveLength(1);
    expect(attempt.status).toBe("agent-error");
    expect(attempt.usage).toMatchObject({ calls: 1, outputTokens: 1_000 });
    expect(attempt.usage.costUsd).toBeGreaterThanOrEqual((1_000 * 20) / 1e6);
  });

  it("the config's model parameters are what the provider receives on every route", {
    timeout: 120_000,
  }, async () => {
    server = await startFakeModelServer((request) => ({
      body: request.path.endsWith("/responses")
        ? { output: [], usage: { input_tokens: 5, output_tokens: 1 } }
        : openAiBody("ok", { input: 5, output: 1, cached: 0 }),
    }));
    const parameters = { reasoning_effort: "low", temperature: 0.2, max_completion_tokens: 2_000 };
    const { results } = await runAttack(
      attackConfig("parameters", openAiModel(server.url, { parameters })),
    );
    const { trajectory } = await attemptFiles(results);
    expect(notes(trajectory)).toEqual(["status 200 200"]);
    const [chat, responses] = server.requests.map((request: FakeRequest) => request.body);
    expect(chat).toMatchObject({
      reasoning_effort: "low",
      temperature: 0.2,
      max_completion_tokens: 2_000,
    });
    expect(responses).toMatchObject({
      reasoning: { effort: "low" },
      temperature: 0.2,
      max_output_tokens: 2_000,
    });
  });

  it("the provider's prompt cache carries nothing from one attempt to the next", {
    timeout: 180_000,
  }, async () => {
    // The provider's cache: a prompt seen before (by any attempt on the account) is cached.
    const seen = new Set<string>();
    server = await startFakeModelServer((request) => {
      const prompt = JSON.stringify((request.body as { messages: unknown }).messages);
      const cached = seen.has(prompt) ? 1_000 : 0;
      seen.add(prompt);
      return { body: openAiBody("ok", { input: 1_000, output: 1, cached }) };
    });
    const { results } = await runAttack(attackConfig("cache-channel", openAiModel(server.url), 2));
    const first = await attemptFiles(results, 1);
    const second = await attemptFiles(results, 2);
    expect(notes(first.trajectory)).toEqual(["wrote 7"]);
    // The second attempt saw no cache hit: it cannot tell it is not the first.
    expect(notes(second.trajectory)).toEqual(["wrote 7"]);
    // The meter still counts the provider's real cache reads.
    expect(second.attempt.usage.cachedTokens).toBeGreaterThan(0);
  });

  it("the manifest names the config's model and agent, not what a trajectory claims", {
    timeout: 180_000,
  }, async () => {
    // `package` wants every incident of the dataset.
    const { work } = await runAttack(attackConfig("claimed-model"), "all");
    const { trajectory } = await attemptFiles(join(work, "results"));
    expect(trajectory.model?.name).toBe("claude-opus-5-5");
    await cli(work, ["score", "results", "--dataset", dataset, "--cache-dir", "cache"]);
    await cli(work, ["package", "results", "--out", "submission.tar.gz"]);
    const entries = readTarGz(await readFile(join(work, "submission.tar.gz")));
    const manifest = JSON.parse(
      Buffer.from(entries.find((entry) => entry.path === "manifest.json")?.data ?? []).toString(),
    );
    expect(manifest.model).toEqual({ name: "none" });
    expect(manifest.harness.name).toBe("command");
    expect(JSON.stringify(manifest)).not.toContain("claude-opus-5-5");
  });
});
