import { DistDebugError, ModelConfig } from "@distdebug/schema";
import {
  anthropicBody,
  type FakeModelServer,
  openAiBody,
  startFakeModelServer,
} from "@distdebug/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { resolveApiKey } from "./api-key.js";
import { createModelClient } from "./model-client.js";
import { costOf } from "./pricing.js";
import { UsageMeter } from "./usage-meter.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modelFor = (
  provider: "openai" | "anthropic",
  baseUrl: string,
  extra: Record<string, unknown> = {},
) =>
  ModelConfig.parse({
    provider,
    name: "test-model",
    baseUrl: provider === "openai" ? `${baseUrl}/v1` : baseUrl,
    maxRetries: 2,
    ...extra,
  });

async function failure(promise: Promise<unknown>): Promise<DistDebugError<unknown>> {
  try {
    await promise;
  } catch (error) {
    if (DistDebugError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe.each([
  {
    provider: "openai" as const,
    body: (text: string) => openAiBody(text, { input: 120, output: 30, cached: 20 }),
    path: "/v1/chat/completions",
  },
  {
    provider: "anthropic" as const,
    body: (text: string) => anthropicBody(text, { input: 100, output: 30, cacheRead: 20 }),
    path: "/v1/messages",
  },
])("the $provider client", ({ provider, body, path }) => {
  it("sends the conversation with the key and reads text and usage (cached included in input)", async () => {
    server = await startFakeModelServer([{ body: body("hello there") }]);
    const client = createModelClient({
      model: modelFor(provider, server.url, { parameters: { temperature: 0.5 } }),
      apiKey: "sk-test-secret",
    });
    const reply = await client.complete([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
    ]);
    expect(reply.content).toBe("hello there");
    expect(reply.tokens).toEqual({ inputTokens: 120, outputTokens: 30, cachedTokens: 20 });
    expect(reply.retries).toBe(0);
    const request = server.requests[0];
    expect(request?.path).toBe(path);
    const sent = request?.body as Record<string, unknown>;
    expect(sent.model).toBe("test-model");
    expect(sent.temperature).toBe(0.5);
    if (provider === "openai") {
      expect(request?.headers.authorization).toBe("Bearer sk-test-secret");
      expect(sent.messages).toEqual([
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ]);
    } else {
      const headers = request?.headers ?? {};
      expect(headers["x-api-key"] ?? headers.authorization).toMatch(/^(Bearer )?sk-test-secret$/);
      expect(sent.system).toBe("be brief");
      expect(sent.max_tokens).toBe(4096);
      expect(sent.messages).toEqual([{ role: "user", content: "hi" }]);
    }
  });

  it("retries a 429 (honouring retry-after-ms) and then succeeds", async () => {
    server = await startFakeModelServer([
      {
        status: 429,
        body: { error: { message: "slow down", type: "rate_limit_error" } },
        headers: { "retry-after-ms": "10" },
      },
      {
        status: 503,
        body: { error: { message: "overloaded" } },
        headers: { "retry-after-ms": "10" },
      },
      { body: body("ok") },
    ]);
    const retries: string[] = [];
    const client = createModelClient({
      model: modelFor(provider, server.url),
      apiKey: "k",
      onRetry: (info) => retries.push(info.message),
    });
    const reply = await client.complete([{ role: "user", content: "hi" }]);
    expect(reply.content).toBe("ok");
    expect(reply.retries).toBe(2);
    expect(server.requests).toHaveLength(3);
    expect(retries[0]).toMatch(/HTTP 429/);
    expect(retries[1]).toMatch(/HTTP 503/);
  });

  it("gives up after maxRetries with MODEL_ERROR, and does not retry a 400", async () => {
    server = await startFakeModelServer([
      { status: 500, body: { error: { message: "boom" } }, headers: { "retry-after-ms": "1" } },
    ]);
    const client = createModelClient({ model: modelFor(provider, server.url), apiKey: "k" });
    const error = await failure(client.complete([{ role: "user", content: "hi" }]));
    expect(error.code).toBe("MODEL_ERROR");
    expect(error.message).toMatch(/failed after 3 tries: HTTP 500/);
    expect(server.requests).toHaveLength(3);
    await server.close();
    server = await startFakeModelServer([
      { status: 400, body: { error: { message: "bad request" } } },
    ]);
    const other = createModelClient({ model: modelFor(provider, server.url), apiKey: "k" });
    expect((await failure(other.complete([{ role: "user", content: "hi" }]))).message).toMatch(
      /after 1 tries: HTTP 400/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("reports a malformed reply without retrying", async () => {
    server = await startFakeModelServer([{ body: "{not json" }, { body: { unexpected: true } }]);
    const client = createModelClient({ model: modelFor(provider, server.url), apiKey: "k" });
    const first = await failure(client.complete([{ role: "user", content: "hi" }]));
    expect(first.code).toBe("MODEL_ERROR");
    expect(first.message).toMatch(/malformed reply/);
    const second = await failure(client.complete([{ role: "user", content: "hi" }]));
    expect(second.message).toMatch(/malformed reply: the body has no/);
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry a reply that outlasts the timeout, and fails naming it as abandoned", async () => {
    // The server answers after 60 s, far beyond the 1 s timeout (long enough for the request
    // to reach the server on a loaded machine).
    server = await startFakeModelServer([{ body: body("late"), delayMs: 60_000 }]);
    const client = createModelClient({
      model: modelFor(provider, server.url, { timeoutMs: 1_000, maxRetries: 3 }),
      apiKey: "k",
      retryInitialDelayMs: 1,
    });
    const error = await failure(client.complete([{ role: "user", content: "hi" }]));
    expect(error.code).toBe("MODEL_ERROR");
    expect(error.message).toMatch(/no reply within 1000 ms/);
    // The provider may be generating still: one generation, metered by the caller at its worst case.
    expect(server.requests).toHaveLength(1);
    expect(error.data).toMatchObject({ abandoned: true, tries: 1 });
  });

  it("retries a connection refused before sending: the provider never saw it", async () => {
    // A port that was just free: nothing listens there.
    const closed = await startFakeModelServer([]);
    await closed.close();
    const client = createModelClient({
      model: modelFor(provider, closed.url, { maxRetries: 2 }),
      apiKey: "k",
      retryInitialDelayMs: 1,
    });
    const error = await failure(client.complete([{ role: "user", content: "hi" }]));
    expect(error.data).toMatchObject({ abandoned: false, tries: 3 });
  });

  it("ends with ABORTED when the caller aborts", async () => {
    server = await startFakeModelServer([{ body: body("late"), delayMs: 2000 }]);
    const client = createModelClient({ model: modelFor(provider, server.url), apiKey: "k" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(
      (
        await failure(
          client.complete([{ role: "user", content: "hi" }], { signal: controller.signal }),
        )
      ).code,
    ).toBe("ABORTED");
  });
});

describe("pricing and metering", () => {
  it("prices cached input apart and keeps tokens when no price is known", () => {
    const prices = { inputPerMillion: 2, outputPerMillion: 10, cachedInputPerMillion: 0.5 };
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 100_000, cachedTokens: 400_000 }, prices),
    ).toBeCloseTo(1.2 + 0.2 + 1, 10);
    expect(costOf({ inputTokens: 10, outputTokens: 10, cachedTokens: 0 }, undefined)).toBeNull();
    const unpriced = new UsageMeter({ budget: { costLimitUsd: 0.01 } });
    unpriced.record({
      model: "m",
      inputTokens: 5,
      outputTokens: 7,
      cachedTokens: 0,
      durationMs: 1,
    });
    expect(unpriced.usage).toEqual({
      inputTokens: 5,
      outputTokens: 7,
      cachedTokens: 0,
      calls: 1,
      costUsd: null,
    });
    expect(unpriced.exceeded()).toBeUndefined();
  });

  it("reports the cost and token budgets once used up", () => {
    const meter = new UsageMeter({
      prices: { inputPerMillion: 1_000, outputPerMillion: 1_000 },
      budget: { costLimitUsd: 0.5 },
    });
    meter.record({
      model: "m",
      inputTokens: 300,
      outputTokens: 100,
      cachedTokens: 0,
      durationMs: 1,
    });
    expect(meter.exceeded()).toBeUndefined();
    meter.record({ model: "m", inputTokens: 100, outputTokens: 0, cachedTokens: 0, durationMs: 1 });
    expect(meter.exceeded()).toMatch(/cost limit of \$0.5/);
    expect(meter.usage.costUsd).toBeCloseTo(0.5, 10);
    const tokens = new UsageMeter({ budget: { tokenLimit: 100 } });
    tokens.record({
      model: "m",
      inputTokens: 60,
      outputTokens: 40,
      cachedTokens: 0,
      durationMs: 1,
    });
    expect(tokens.exceeded()).toMatch(/token limit of 100/);
  });

  it("names the missing key variable in one line", () => {
    const error = (() => {
      try {
        resolveApiKey({ provider: "anthropic", name: "claude" }, {});
      } catch (caught) {
        return caught as DistDebugError;
      }
    })();
    expect(error?.code).toBe("MISSING_ENV");
    expect(error?.message).toMatch(/^environment variable ANTHROPIC_API_KEY is not set/);
    expect(error?.message).not.toMatch(/\n/);
    expect(
      resolveApiKey({ provider: "openai", name: "m", apiKeyEnv: "MY_KEY" }, { MY_KEY: "v" }),
    ).toBe("v");
  });
});
