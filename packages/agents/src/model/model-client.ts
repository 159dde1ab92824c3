import {
  type CallTokens,
  DistDebugError,
  type ModelConfig,
  usageFromWire,
} from "@distdebug/schema";
import { createAnthropicClient } from "./anthropic-client.js";
import { mockModelFor } from "./mock-model.js";
import { createOpenAiClient } from "./openai-client.js";

/** A chat message sent to the model. */
export interface ModelMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** The model's answer to one call, with what it cost in tokens. */
export interface ModelReply {
  /** The assistant's text. */
  content: string;
  tokens: CallTokens;
  /** The model name the server reported, else the configured one. */
  model: string;
  /** Wall time of the call including retries. */
  durationMs: number;
  /** Retries used (429, 5xx, timeouts). */
  retries: number;
}

/** Per-call options of {@link ModelClient.complete}. */
export interface CompleteOptions {
  signal?: AbortSignal;
  /** Overrides the config's `timeoutMs` for this call (for example to end at a deadline). */
  timeoutMs?: number;
}

/** A model behind one wire protocol. Throws `MODEL_ERROR` (after retries) or `ABORTED`. */
export interface ModelClient {
  readonly provider: ModelConfig["provider"];
  readonly model: string;
  complete(messages: readonly ModelMessage[], options?: CompleteOptions): Promise<ModelReply>;
}

/** Options of {@link createModelClient}. */
export interface CreateModelClientOptions {
  model: ModelConfig;
  apiKey: string;
  /** Delay before the first retry in milliseconds (doubles each retry). Default 1000. */
  retryInitialDelayMs?: number;
  /** Longest wait between retries. Default 30,000 ms. */
  retryMaxDelayMs?: number;
  /** Called before each retry. */
  onRetry?: (info: { attempt: number; delayMs: number; message: string }) => void;
}

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
