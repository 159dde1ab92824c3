import { execFile } from "node:child_process";
import { request } from "node:http";
import { promisify } from "node:util";
import { ModelConfig } from "@distdebug/schema";
import {
  anthropicBody,
  type FakeModelServer,
  openAiBody,
  startFakeModelServer,
} from "@distdebug/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { UsageMeter } from "../model/usage-meter.js";
import { forwarderProgramFile } from "./forwarder.js";
import { type ModelGateway, startGateway } from "./gateway-server.js";

const run = promisify(execFile);
let upstream: FakeModelServer | undefined;
let gateway: ModelGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

function post(
  socketPath: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}

const model = (
  provider: "openai" | "anthropic",
  url: string,
  extra: Record<string, unknown> = {},
) =>
  ModelConfig.parse({
    provider,
    name: "real-model",
    baseUrl: provider === "openai" ? `${url}/v1` : url,
    maxRetries: 2,
    prices: { inputPerMillion: 1_000, outputPerMillion: 2_000 },
    ...extra,
  });

describe("the model gateway", () => {
  it("forwards OpenAI calls with the real key and the configured model, and meters them", async () => {
    upstream = await startFakeModelServer([
      { status: 429, body: { error: { message: "slow" } }, headers: { "retry-after-ms": "5" } },
      { body: openAiBody("hi", { input: 50, output: 10, cached: 5 }) },
    ]);
    const meter = new UsageMeter({ prices: model("openai", upstream.url).prices });
    gateway = await startGateway({
      model: model("openai", upstream.url),
      apiKey: "sk-real-key",
      meter,
    });
    const reply = await post(
      gateway.socketPath,
      "/v1/chat/completions",
      { model: "whatever", messages: [{ role: "user", content: "q" }] },
      { authorization: "Bearer placeholder" },
    );
    expect(reply.status).toBe(200);
    expect((reply.body.choices as { message: { content: string } }[])[0]?.message.content).toBe(
      "hi",
    );
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]?.path).toBe("/v1/chat/completions");
    expect(upstream.requests[1]?.headers.authorization).toBe("Bearer sk-real-key");
    expect((upstream.requests[1]?.body as { model?: string } | undefined)?.model).toBe(
      "real-model",
    );
    expect(meter.usage).toEqual({
      inputTokens: 50,
      outputTokens: 10,
      cachedTokens: 5,
      calls: 1,
      costUsd: (50 * 1000 + 10 * 2000) / 1e6,
    });
    expect(meter.calls[0]).toMatchObject({ type: "model-call", inputTokens: 50, outputTokens: 10 });
  });

  it("forwards Anthropic calls with x-api-key and refuses other routes and streaming", async () => {
    upstream = await startFakeModelServer([
      { body: anthropicBody("yo", { input: 30, output: 4, cacheRead: 10 }) },
    ]);
    const meter = new UsageMeter();
    gateway = await startGateway({
      model: model("anthropic", upstream.url),
      apiKey: "sk-ant-real",
      meter,
    });
    const reply = await post(
      gateway.socketPath,
      "/v1/messages",
      { model: "x", max_tokens: 10, messages: [{ role: "user", content: "q" }] },
      { "x-api-key": "placeholder" },
    );
    expect(reply.status).toBe(200);
    expect(upstream.requests[0]?.headers["x-api-key"]).toBe("sk-ant-real");
    expect(upstream.requests[0]?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(meter.usage).toMatchObject({
      inputTokens: 40,
      outputTokens: 4,
      cachedTokens: 10,
      calls: 1,
    });
    expect((await post(gateway.socketPath, "/v1/chat/completions", {})).status).toBe(404);
    expect((await post(gateway.socketPath, "/v1/messages", { stream: true })).status).toBe(400);
    expect((await post(gateway.socketPath, "/v1/messages", "{broken")).status).toBe(400);
    expect(upstream.requests).toHaveLength(1);
    expect(gateway.refused).toBe(3);
  });

  it("refuses calls with 402 once the budget is used up", async () => {
    upstream = await startFakeModelServer([
      { body: openAiBody("x", { input: 300, output: 100, cached: 0 }) },
    ]);
    const config = model("openai", upstream.url);
    const meter = new UsageMeter({ prices: config.prices, budget: { costLimitUsd: 0.4 } });
    gateway = await startGateway({ model: config, apiKey: "k", meter });
    expect((await post(gateway.socketPath, "/v1/chat/completions", { messages: [] })).status).toBe(
      200,
    );
    const refused = await post(gateway.socketPath, "/v1/chat/completions", { messages: [] });
    expect(refused.status).toBe(402);
    expect((refused.body.error as { type: string }).type).toBe("budget_exceeded");
    expect(gateway.limitHit).toMatch(/cost limit of \$0.4/);
    expect(upstream.requests).toHaveLength(1);
  });

  it("is reachable through the forwarder's loopback URL from a child program", async () => {
    upstream = await startFakeModelServer([
      { body: openAiBody("through the forwarder", { input: 7, output: 3, cached: 0 }) },
    ]);
    const meter = new UsageMeter();
    gateway = await startGateway({ model: model("openai", upstream.url), apiKey: "k", meter });
    const script = `const r = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [] }) }); const j = await r.json(); console.log(j.choices[0].message.content); process.exit(3);`;
    const result = await run(
      process.execPath,
      [forwarderProgramFile, process.execPath, "--input-type=module", "-e", script],
      {
        env: { DISTDEBUG_GATEWAY_SOCKET: gateway.socketPath, PATH: process.env.PATH ?? "" },
      },
    ).catch((error: { code: number; stdout: string }) => error);
    expect(result.stdout.trim()).toBe("through the forwarder");
    expect((result as { code?: number }).code).toBe(3);
    expect(meter.usage.inputTokens).toBe(7);
  });
});
