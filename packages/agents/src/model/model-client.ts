import { DistDebugError, usageFromWire } from "@distdebug/schema";
import { createAnthropicClient } from "./anthropic-client.js";
import { mockModelFor } from "./mock-model.js";
import type { CreateModelClientOptions, ModelClient } from "./model-types.js";
import { createOpenAiClient } from "./openai-client.js";

export type {
  CompleteOptions,
  CreateModelClientOptions,
  ModelClient,
  ModelMessage,
  ModelReply,
} from "./model-types.js";

/**
 * A client for the config's model: OpenAI-compatible Chat Completions (`provider: openai`,
 * any `baseUrl`: vLLM, OpenRouter, Ollama) or the Anthropic Messages API
 * (`provider: anthropic`), or the scripted in-process model of `provider: mock`. Retries on 429, 5xx, timeouts and connection errors up to
 * `model.maxRetries` (default 5) with exponential backoff or the server's `retry-after`;
 * each try times out after `model.timeoutMs` (default 600 s). `model.parameters` are sent
 * with each request (`max_tokens` defaults to 4096 for Anthropic, which requires it).
 *
 * @example
 * ```ts
 * const client = createModelClient({ model: config.model, apiKey: process.env.OPENAI_API_KEY! });
 * const reply = await client.complete([{ role: "user", content: "Hello" }]);
 * console.log(reply.content, reply.tokens);
 * ```
 */
export function createModelClient(options: CreateModelClientOptions): ModelClient {
  if (options.model.provider === "mock") return createMockClient(options);
  return options.model.provider === "anthropic"
    ? createAnthropicClient(options)
    : createOpenAiClient(options);
}

/** The in-process client of `provider: mock` (see `createMockModel`): no network, no key. */
function createMockClient(options: CreateModelClientOptions): ModelClient {
  const mock = mockModelFor(options.model)!;
  return {
    provider: "mock",
    model: options.model.name,
    async complete(messages, callOptions = {}) {
      if (callOptions.signal?.aborted)
        throw new DistDebugError({ code: "ABORTED", message: "the model call was cancelled" });
      const body = mock.reply({ model: options.model.name, messages });
      return {
        content: body.choices[0]?.message.content ?? "",
        tokens: usageFromWire("openai", body)!,
        model: body.model,
        durationMs: 0,
        retries: 0,
      };
    },
  };
}
