import Anthropic from "@anthropic-ai/sdk";
import { usageFromWire } from "@distdebug/schema";
import { callModel, malformedReply } from "./call-model.js";
import type { CreateModelClientOptions, ModelClient } from "./model-types.js";

/** `max_tokens` sent to Anthropic when `model.parameters` names none (the API requires it). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** The Anthropic Messages API client (see `createModelClient`). */
export function createAnthropicClient(options: CreateModelClientOptions): ModelClient {
  const sdk = new Anthropic({
    apiKey: options.apiKey,
    ...(options.model.baseUrl === undefined ? {} : { baseURL: options.model.baseUrl }),
    maxRetries: 0,
    timeout: options.model.timeoutMs,
  });
  return {
    provider: "anthropic",
    model: options.model.name,
    complete: (messages, callOptions = {}) =>
      callModel(options, callOptions, async (request) => {
        const system = messages
          .filter((message) => message.role === "system")
          .map((message) => message.content)
          .join("\n\n");
        const body = await sdk.messages.create(
          {
            max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
            ...(options.model.parameters as Record<string, never>),
            model: options.model.name,
            ...(system === "" ? {} : { system }),
            messages: messages
              .filter((message) => message.role !== "system")
              .map((message) => ({
                role: message.role as "user" | "assistant",
                content: message.content,
              })),
            stream: false,
          },
          { ...request, maxRetries: 0 },
        );
        if (!Array.isArray(body?.content)) throw malformedReply("the body has no content list");
        const content = body.content
          .map((block) => (block.type === "text" ? block.text : ""))
          .join("");
        const tokens = usageFromWire("anthropic", body);
        if (!tokens)
          throw malformedReply("the body has no usage object (tokens cannot be counted)");
        return {
          content,
          tokens,
          ...(typeof body.model === "string" ? { model: body.model } : {}),
        };
      }),
  };
}
