import { ModelConfig } from "@distdebug/schema";
import {
  anthropicBody,
  type FakeModelServer,
  type FakeReply,
  openAiBody,
  postToSocket,
  startFakeModelServer,
} from "@distdebug/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { UsageMeter } from "../model/usage-meter.js";
import { type ModelGateway, startGateway } from "./gateway-server.js";
import { worstCaseTokens } from "./request-policy.js";

let upstream: FakeModelServer | undefined;
let gateway: ModelGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

type Json = Record<string, unknown>;

const post = postToSocket;

/** A gateway in front of a scripted upstream, with the config's model made from `extra`. */
async function gatewayFor(provider: "openai" | "anthropic", script: FakeReply[], extra: Json = {}) {
  upstream = await startFakeModelServer(script);
  const config = ModelConfig.parse({
    provider,
    name: "real-model",
    baseUrl: provider === "openai" ? `${upstream.url}/v1` : upstream.url,
    maxRetries: 3,
    prices: { inputPerMillion: 10, outputPerMillion: 20 },
    ...extra,
  });
  const meter = new UsageMeter({ prices: config.prices, provider });
  gateway = await startGateway({
    model: config,
    apiKey: "sk-real",
    meter,
    retryInitialDelayMs: 1,
  });
  return { meter, gateway, upstream };
}

const messages = [{ role: "user", content: "q" }];

describe("the gateway's metering of token classes", () => {
  it("prices Anthropic cache writes by lifetime: a $1.00 bill is metered $1.00", async () => {
    // 50,000 tokens written for 1 hour at 2 x $10/M = $1.00 (plain input would be $0.50).
    const body = anthropicBody("ok", { input: 0, output: 0, cacheRead: 0, cacheWrite1h: 50_000 });
    const { meter, gateway } = await gatewayFor("anthropic", [{ body }]);
    const reply = await post(gateway.socketPath, "/v1/messages", { messages, max_tokens: 10 });
    expect(reply.status).toBe(200);
    expect(meter.usage.costUsd).toBeCloseTo(1, 10);
    expect(meter.calls[0]).toMatchObject({ inputTokens: 50_000, cacheWrite1hTokens: 50_000 });
  });

  it("prices 5-minute writes at 1.25 x, cache reads and reasoning at the config's prices", async () => {
    const body = anthropicBody("ok", {
      input: 1_000,
      output: 0,
      cacheRead: 10_000,
      cacheWrite5m: 8_000,
    });
    const { meter, gateway } = await gatewayFor("anthropic", [{ body }], {
      prices: { inputPerMillion: 10, outputPerMillion: 20, cachedInputPerMillion: 1 },
    });
    await post(gateway.socketPath, "/v1/messages", { messages, max_tokens: 10 });
    expect(meter.usage.costUsd).toBeCloseTo((1_000 * 10 + 10_000 * 1 + 8_000 * 12.5) / 1e6, 10);
  });

  it("prices OpenAI reasoning tokens at reasoningPerMillion", async () => {
    const body = openAiBody("ok", { input: 100, output: 1_000, cached: 0 });
    (body.usage as Json).completion_tokens_details = { reasoning_tokens: 900 };
    const { meter, gateway } = await gatewayFor("openai", [{ body }], {
      prices: { inputPerMillion: 10, outputPerMillion: 20, reasoningPerMillion: 40 },
    });
    await post(gateway.socketPath, "/v1/chat/completions", { messages });
    expect(meter.usage.costUsd).toBeCloseTo((100 * 10 + 100 * 20 + 900 * 40) / 1e6, 10);
    expect(meter.calls[0]).toMatchObject({ outputTokens: 1_000, reasoningTokens: 900 });
  });
});

describe("the gateway's calls it gives up on", () => {
  it("does not retry a call that outlasts timeoutMs and meters it at its admitted worst case", async () => {
    // The upstream answers after 60 s, far beyond the 2 s timeout (long enough for the request
    // to reach it on a loaded machine): the gateway gives up.
    const slow = { body: openAiBody("late", { input: 1, output: 1, cached: 0 }), delayMs: 60_000 };
    const { meter, gateway, upstream } = await gatewayFor("openai", [slow], { timeoutMs: 2_000 });
    const sent = { messages, max_completion_tokens: 1_000 };
    const reply = await post(gateway.socketPath, "/v1/chat/completions", sent);
    expect(reply.status).toBe(504);
    expect(JSON.stringify(reply.body)).toMatch(/no reply within 2000 ms.*worst case/);
    expect(upstream.requests).toHaveLength(1);
    const worst = worstCaseTokens({ ...sent, model: "real-model" }, 1_000);
    expect(meter.usage).toMatchObject({
      calls: 1,
      inputTokens: worst.inputTokens,
      outputTokens: 1_000,
    });
    expect(meter.usage.costUsd).toBeCloseTo((worst.inputTokens * 10 + 1_000 * 20) / 1e6, 10);
    expect(meter.calls[0]?.error).toMatch(/worst case/);
  });

  it("meters a call still in flight when the attempt ends at its worst case", async () => {
    const slow = { body: openAiBody("late", { input: 1, output: 1, cached: 0 }), delayMs: 60_000 };
    const { meter, gateway, upstream } = await gatewayFor("openai", [slow]);
    const pending = post(gateway.socketPath, "/v1/chat/completions", {
      messages,
      max_completion_tokens: 500,
    }).catch(() => undefined);
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await gateway.close();
    await pending;
    expect(meter.usage).toMatchObject({ calls: 1, outputTokens: 500 });
    expect(meter.calls[0]?.error).toMatch(/attempt ended.*worst case/);
  });

  it("meters a successful reply without usage at its worst case, and an error status at zero", async () => {
    const { meter, gateway } = await gatewayFor("openai", [
      { body: { choices: [{ message: { role: "assistant", content: "x" } }] } },
      { status: 400, body: { error: { message: "bad" } } },
    ]);
    await post(gateway.socketPath, "/v1/chat/completions", { messages, max_tokens: 100 });
    await post(gateway.socketPath, "/v1/chat/completions", { messages, max_tokens: 100 });
    expect(meter.calls.map((call) => call.outputTokens)).toEqual([100, 0]);
  });
});

describe("the config's model parameters over the agent's request", () => {
  const agentAsks = { temperature: 1.7, top_p: 0.2 };
  it.for([
    {
      route: "/v1/chat/completions",
      provider: "openai" as const,
      parameters: { reasoning_effort: "low", temperature: 0.2, max_completion_tokens: 2_000 },
      sent: { ...agentAsks, reasoning_effort: "xhigh", max_completion_tokens: 64_000 },
      received: { reasoning_effort: "low", temperature: 0.2, max_completion_tokens: 2_000 },
    },
    {
      route: "/v1/responses",
      provider: "openai" as const,
      parameters: {
        reasoning_effort: "low",
        temperature: 0.2,
        max_tokens: 2_000,
        verbosity: "low",
      },
      sent: {
        ...agentAsks,
        reasoning: { effort: "xhigh" },
        text: { format: { type: "text" }, verbosity: "high" },
        max_output_tokens: 64_000,
      },
      received: {
        reasoning: { effort: "low" },
        text: { format: { type: "text" }, verbosity: "low" },
        temperature: 0.2,
        max_output_tokens: 2_000,
      },
    },
    {
      route: "/v1/messages",
      provider: "anthropic" as const,
      parameters: { temperature: 0.2, max_tokens: 2_000, thinking: { type: "disabled" } },
      sent: {
        ...agentAsks,
        thinking: { type: "enabled", budget_tokens: 60_000 },
        max_tokens: 64_000,
      },
      received: { temperature: 0.2, max_tokens: 2_000, thinking: { type: "disabled" } },
    },
  ])(
    "are what the provider receives on $route",
    async ({ route, provider, parameters, sent, received }) => {
      const body =
        provider === "openai"
          ? openAiBody("ok", { input: 1, output: 1, cached: 0 })
          : anthropicBody("ok", { input: 1, output: 1, cacheRead: 0 });
      const { gateway, upstream } = await gatewayFor(provider, [{ body }], { parameters });
      const input = route === "/v1/responses" ? { input: "q" } : { messages };
      expect((await post(gateway.socketPath, route, { ...input, ...sent })).status).toBe(200);
      const forwarded = upstream.requests[0]?.body as Json;
      expect(forwarded).toMatchObject({ ...received, top_p: 0.2 });
    },
  );

  it("lets the agent ask for fewer tokens than the config's cap", async () => {
    const body = openAiBody("ok", { input: 1, output: 1, cached: 0 });
    const { gateway, upstream } = await gatewayFor("openai", [{ body }], {
      parameters: { max_tokens: 2_000 },
    });
    await post(gateway.socketPath, "/v1/chat/completions", { messages, max_tokens: 100 });
    expect(upstream.requests[0]?.body).toMatchObject({ max_tokens: 100 });
  });
});

describe("the cache usage the agent sees", () => {
  it.for([
    {
      route: "/v1/chat/completions",
      provider: "openai" as const,
      usage: {
        prompt_tokens: 1_000,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 900 },
      },
      seen: { prompt_tokens: 1_000, prompt_tokens_details: { cached_tokens: 0 } },
    },
    {
      route: "/v1/responses",
      provider: "openai" as const,
      usage: {
        input_tokens: 1_000,
        output_tokens: 5,
        input_tokens_details: { cached_tokens: 900 },
      },
      seen: { input_tokens: 1_000, input_tokens_details: { cached_tokens: 0 } },
    },
    {
      route: "/v1/messages",
      provider: "anthropic" as const,
      usage: {
        input_tokens: 40,
        output_tokens: 5,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 60,
        cache_creation: { ephemeral_5m_input_tokens: 60, ephemeral_1h_input_tokens: 0 },
      },
      seen: {
        input_tokens: 1_000,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    },
  ])(
    "is plain input on $route, while the meter counts the cache",
    async ({ route, provider, usage, seen }) => {
      const { meter, gateway } = await gatewayFor(provider, [{ body: { content: [], usage } }]);
      const input = route === "/v1/responses" ? { input: "q" } : { messages, max_tokens: 10 };
      const reply = await post(gateway.socketPath, route, input);
      expect(reply.body.usage).toMatchObject(seen);
      expect(meter.usage).toMatchObject({ inputTokens: 1_000, cachedTokens: 900 });
    },
  );
});
