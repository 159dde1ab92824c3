import { execFile } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { promisify } from "node:util";
import { ModelConfig } from "@distdebug/schema";
import {
  anthropicBody,
  type FakeModelServer,
  openAiBody,
  postToSocket,
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

const post = postToSocket;

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
    const call = { messages: [], max_tokens: 100 };
    expect((await post(gateway.socketPath, "/v1/chat/completions", call)).status).toBe(200);
    const refused = await post(gateway.socketPath, "/v1/chat/completions", call);
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

describe("the gateway's request allowlist", () => {
  const chat = { messages: [{ role: "user", content: "q" }] };
  const input = { input: "q" };
  const anthropic = { max_tokens: 10, messages: [{ role: "user", content: "q" }] };
  const cases: [string, "openai" | "anthropic", string, Record<string, unknown>, RegExp][] = [
    [
      "web search (responses)",
      "openai",
      "/v1/responses",
      { ...input, tools: [{ type: "web_search" }] },
      /"web_search" runs at the provider/,
    ],
    [
      "file search (responses)",
      "openai",
      "/v1/responses",
      { ...input, tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] },
      /"file_search"/,
    ],
    [
      "code interpreter (responses)",
      "openai",
      "/v1/responses",
      { ...input, tools: [{ type: "code_interpreter", container: { type: "auto" } }] },
      /"code_interpreter"/,
    ],
    [
      "computer use (responses)",
      "openai",
      "/v1/responses",
      { ...input, tools: [{ type: "computer_use_preview" }] },
      /"computer_use_preview"/,
    ],
    [
      "an MCP server tool (responses)",
      "openai",
      "/v1/responses",
      { ...input, tools: [{ type: "mcp", server_url: "https://evil.example" }] },
      /"mcp"/,
    ],
    [
      "web search options (chat)",
      "openai",
      "/v1/chat/completions",
      { ...chat, web_search_options: {} },
      /"web_search_options" is not forwarded/,
    ],
    ["n > 1 (chat)", "openai", "/v1/chat/completions", { ...chat, n: 64 }, /n: 64 is refused/],
    [
      "stream (chat)",
      "openai",
      "/v1/chat/completions",
      { ...chat, stream: true },
      /stream: true is refused/,
    ],
    [
      "store (chat)",
      "openai",
      "/v1/chat/completions",
      { ...chat, store: true },
      /store: true is refused/,
    ],
    [
      "background (responses)",
      "openai",
      "/v1/responses",
      { ...input, background: true },
      /background: true is refused/,
    ],
    [
      "stored responses (responses)",
      "openai",
      "/v1/responses",
      { ...input, previous_response_id: "resp_1" },
      /"previous_response_id" is not forwarded/,
    ],
    [
      "MCP servers (anthropic)",
      "anthropic",
      "/v1/messages",
      { ...anthropic, mcp_servers: [{ type: "url", url: "https://evil.example" }] },
      /"mcp_servers" is not forwarded/,
    ],
    [
      "web search (anthropic)",
      "anthropic",
      "/v1/messages",
      { ...anthropic, tools: [{ type: "web_search_20250305", name: "web_search" }] },
      /"web_search_20250305" runs at the provider/,
    ],
    [
      "code execution (anthropic)",
      "anthropic",
      "/v1/messages",
      { ...anthropic, tools: [{ type: "code_execution_20250522", name: "code_execution" }] },
      /runs at the provider/,
    ],
    [
      "an image by URL (chat)",
      "openai",
      "/v1/chat/completions",
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "read this" },
              { type: "image_url", image_url: { url: "https://evil.example/fix.png" } },
            ],
          },
        ],
      },
      /messages\[0\]\.content\[1\]\.image_url: "https:\/\/evil\.example\/fix\.png" is a URL the provider would fetch/,
    ],
    [
      "an uploaded file (chat)",
      "openai",
      "/v1/chat/completions",
      { messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-1" } }] }] },
      /file_id: references something stored at the provider/,
    ],
    [
      "a file by URL (responses)",
      "openai",
      "/v1/responses",
      {
        input: [
          {
            role: "user",
            content: [{ type: "input_file", file_url: "https://evil.example/fix.pdf" }],
          },
        ],
      },
      /file_url: "https:\/\/evil\.example\/fix\.pdf" is a URL the provider would fetch/,
    ],
    [
      "an image by URL in a tool's output (responses)",
      "openai",
      "/v1/responses",
      {
        input: [
          {
            type: "function_call_output",
            call_id: "c1",
            output: [{ type: "input_image", image_url: "http://evil.example/x" }],
          },
        ],
      },
      /input\[0\]\.output\[0\]\.image_url: .* is a URL the provider would fetch/,
    ],
    [
      "a stored item (responses)",
      "openai",
      "/v1/responses",
      { input: [{ type: "item_reference", id: "msg_1" }] },
      /item_reference names an item stored at the provider/,
    ],
    [
      "a document by URL (anthropic)",
      "anthropic",
      "/v1/messages",
      {
        ...anthropic,
        messages: [
          {
            role: "user",
            content: [
              { type: "document", source: { type: "url", url: "https://evil.example/fix.pdf" } },
            ],
          },
        ],
      },
      /messages\[0\]\.content\[0\]\.source\.url: .* is a URL the provider would fetch/,
    ],
    [
      "an image by URL in a tool result (anthropic)",
      "anthropic",
      "/v1/messages",
      {
        ...anthropic,
        messages: [
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "t1",
                content: [{ type: "image", source: { type: "url", url: "https://evil.example" } }],
              },
            ],
          },
        ],
      },
      /is a URL the provider would fetch/,
    ],
    [
      "stream (anthropic)",
      "anthropic",
      "/v1/messages",
      { ...anthropic, stream: true },
      /stream: true is refused/,
    ],
  ];
  it.each(cases)(
    "refuses %s with a clear 400 and forwards nothing",
    async (_name, provider, path, body, message) => {
      upstream = await startFakeModelServer([
        { body: openAiBody("x", { input: 1, output: 1, cached: 0 }) },
      ]);
      gateway = await startGateway({
        model: model(provider, upstream.url),
        apiKey: "k",
        meter: new UsageMeter(),
      });
      const reply = await post(gateway.socketPath, path, body);
      expect(reply.status).toBe(400);
      expect((reply.body.error as { type: string; message: string }).message).toMatch(message);
      expect(upstream.requests).toHaveLength(0);
      expect(gateway.limitHit).toBeUndefined();
    },
  );

  it("forwards plain function tools, model parameters and inline content, caps the output when the request names no cap, and stores no Responses reply", async () => {
    upstream = await startFakeModelServer(() => ({
      body: openAiBody("ok", { input: 1, output: 1, cached: 0 }),
    }));
    gateway = await startGateway({
      model: model("openai", upstream.url),
      apiKey: "k",
      meter: new UsageMeter(),
    });
    const tool = { type: "function", function: { name: "bash", parameters: { type: "object" } } };
    const body = {
      ...chat,
      temperature: 0.2,
      top_p: 0.9,
      stop: ["x"],
      reasoning_effort: "low",
      tools: [tool],
      n: 1,
      stream: false,
    };
    expect((await post(gateway.socketPath, "/v1/chat/completions", body)).status).toBe(200);
    expect(upstream.requests[0]?.body).toEqual({
      ...body,
      model: "real-model",
      max_completion_tokens: 8192,
    });
    const responses = {
      ...input,
      max_output_tokens: 30,
      reasoning: { effort: "high" },
      tools: [{ type: "function", name: "bash", parameters: {} }],
    };
    expect((await post(gateway.socketPath, "/v1/responses", responses)).status).toBe(200);
    expect(upstream.requests[1]?.body).toEqual({
      ...responses,
      model: "real-model",
      store: false,
    });
    const inline = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see https://example.org (text is not fetched)" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    };
    expect((await post(gateway.socketPath, "/v1/chat/completions", inline)).status).toBe(200);
  });
});

/** An OpenAI gateway without a budget over an upstream that answers every call; its socket. */
async function startAnsweringGateway(): Promise<string> {
  upstream = await startFakeModelServer(() => ({
    body: openAiBody("ok", { input: 1, output: 1, cached: 0 }),
  }));
  gateway = await startGateway({
    model: model("openai", upstream.url),
    apiKey: "k",
    meter: new UsageMeter(),
  });
  return gateway.socketPath;
}

describe("the gateway's memory", () => {
  it("holds at most 64 MiB of request bodies at once: a third large body streamed in parallel gets 429", {
    timeout: 60_000,
  }, async () => {
    const socketPath = await startAnsweringGateway();
    const MiB = Buffer.alloc(1024 * 1024, 32);
    const open: ReturnType<typeof request>[] = [];
    // Three bodies of 31 MiB each (under the 32 MiB request limit), none of them ever ended.
    const first = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no request was refused")), 30_000);
      for (let index = 0; index < 3; index++) {
        const req = request({ socketPath, path: "/v1/chat/completions", method: "POST" }, (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8");
          });
          res.on("end", () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, text });
          });
        });
        req.on("error", () => {});
        req.write('{"messages": "');
        for (let chunk = 0; chunk < 31; chunk++) req.write(MiB);
        open.push(req);
      }
    });
    const refused = await first.finally(() => {
      for (const req of open) req.destroy();
    });
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/at most 64 MiB of request bodies at once/);
    expect(upstream?.requests).toHaveLength(0);
    // What the refused and abandoned requests held is released: a normal call goes through.
    await expect
      .poll(async () => (await post(socketPath, "/v1/chat/completions", { messages: [] })).status)
      .toBe(200);
  });
});

describe("the gateway's connections", () => {
  it("holds at most 128 at once: an agent cannot use up the harness's file descriptors", async () => {
    const socketPath = await startAnsweringGateway();
    let closed = 0;
    const sockets = Array.from({ length: 300 }, () => {
      const socket = connect(socketPath);
      socket.on("error", () => {});
      socket.on("close", () => {
        closed += 1;
      });
      return socket;
    });
    try {
      await expect.poll(() => closed, { timeout: 20_000 }).toBeGreaterThanOrEqual(300 - 128);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    // Once the flood is gone, calls go through again.
    await expect
      .poll(async () => (await post(socketPath, "/v1/chat/completions", { messages: [] })).status)
      .toBe(200);
  });
});

describe("the gateway's admission control", () => {
  it("forwards only the parallel calls whose worst case fits the budget and sets limitHit", async () => {
    // Each call could cost about $0.13 (max 50 output tokens at $2000/M, ~30 prompt tokens at
    // $1000/M); each reply costs $0.10. With a $0.20 limit only one call may be in flight.
    upstream = await startFakeModelServer(() => ({
      body: openAiBody("x", { input: 20, output: 40, cached: 0 }),
      delayMs: 200,
    }));
    const config = model("openai", upstream.url);
    const meter = new UsageMeter({ prices: config.prices, budget: { costLimitUsd: 0.2 } });
    gateway = await startGateway({ model: config, apiKey: "k", meter });
    const script = `const calls = Array.from({ length: 30 }, () => fetch(process.env.OPENAI_BASE_URL + "/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "user", content: "q" }], max_tokens: 50 }) }).then((r) => r.status)); console.log(JSON.stringify(await Promise.all(calls)));`;
    const result = await run(
      process.execPath,
      [forwarderProgramFile, process.execPath, "--input-type=module", "-e", script],
      { env: { DISTDEBUG_GATEWAY_SOCKET: gateway.socketPath, PATH: process.env.PATH ?? "" } },
    );
    const statuses = JSON.parse(result.stdout) as number[];
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 402)).toHaveLength(29);
    expect(upstream.requests).toHaveLength(1);
    expect(meter.usage.costUsd).toBeLessThanOrEqual(0.2);
    expect(gateway.limitHit).toMatch(/cost limit of \$0.2 leaves no room/);
  });

  it("takes the larger of max_tokens and max_completion_tokens as a chat call's worst case", async () => {
    upstream = await startFakeModelServer(() => ({
      body: openAiBody("x", { input: 1, output: 1, cached: 0 }),
    }));
    const meter = new UsageMeter({ budget: { tokenLimit: 10_000 } });
    gateway = await startGateway({ model: model("openai", upstream.url), apiKey: "k", meter });
    const messages = [{ role: "user", content: "q" }];
    const both = { messages, max_completion_tokens: 1, max_tokens: 100_000 };
    const reply = await post(gateway.socketPath, "/v1/chat/completions", both);
    expect(reply.status).toBe(402);
    expect(upstream.requests).toHaveLength(0);
    const fits = { messages, max_completion_tokens: 100, max_tokens: 200 };
    expect((await post(gateway.socketPath, "/v1/chat/completions", fits)).status).toBe(200);
  });

  it("counts calls in flight against the call and token limits", async () => {
    const meter = new UsageMeter({ budget: { callLimit: 2, tokenLimit: 1000 } });
    const worst = { inputTokens: 100, outputTokens: 300, cachedTokens: 0 };
    const first = meter.admit(worst);
    const second = meter.admit(worst);
    expect(typeof first).toBe("object");
    expect(typeof second).toBe("object");
    expect(meter.admit(worst)).toMatch(/call limit of 2/);
    if (typeof first === "object") first.release();
    expect(meter.admit({ ...worst, outputTokens: 600 })).toMatch(
      /token limit of 1000 leaves no room/,
    );
  });
});

describe.runIf(process.getuid?.() === 0)("the gateway's socket", () => {
  /** Connects to the socket as `uid` and prints the HTTP status or the error code. */
  const connectAs = async (uid: number, socketPath: string) => {
    const script = `const s = require("node:net").connect(process.argv[1]); s.on("connect", () => s.write("POST /v1/chat/completions HTTP/1.1\\r\\nhost: x\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\n{}")); s.on("data", (d) => { console.log(String(d).split(" ")[1]); s.destroy(); }); s.on("error", (e) => console.log(e.code));`;
    const args = [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
    const result = await run("setpriv", [...args, process.execPath, "-e", script, socketPath]);
    return result.stdout.trim();
  };

  it("is usable only by the sandbox's user: another local uid gets EACCES", async () => {
    upstream = await startFakeModelServer(() => ({
      body: openAiBody("x", { input: 1, output: 1, cached: 0 }),
    }));
    gateway = await startGateway({
      model: model("openai", upstream.url),
      apiKey: "k",
      meter: new UsageMeter(),
      owner: { uid: 65534, gid: 65534 },
    });
    expect(await connectAs(65533, gateway.socketPath)).toBe("EACCES");
    expect(await connectAs(65534, gateway.socketPath)).toBe("200");
    expect(upstream.requests).toHaveLength(1);
  });
});
