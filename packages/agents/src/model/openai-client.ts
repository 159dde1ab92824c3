import { usageFromWire } from "@distdebug/schema";
import OpenAI from "openai";
import { callModel, malformedReply } from "./call-model.js";
import type { CreateModelClientOptions, ModelClient } from "./model-types.js";

/** The OpenAI-compatible Chat Completions client (see `createModelClient`). */
export function createOpenAiClient(options: CreateModelClientOptions): ModelClient {
  const sdk = new OpenAI({
    apiKey: options.apiKey,
    ...(options.model.baseUrl === undefined ? {} : { baseURL: options.model.baseUrl }),
    maxRetries: 0,
    timeout: options.model.timeoutMs,
  });
  return {
    provider: "openai",
    model: options.model.name,
    complete: (messages, callOptions = {}) =>
      callModel(options, callOptions, async (request) => {
        const body = await sdk.chat.completions.create(
          {
            ...(options.model.parameters as Record<string, never>),
            model: options.model.name,
            messages: messages.map((message) => ({ role: message.role, content: message.content })),
            stream: false,
          },
          { ...request, maxRetries: 0 },
        );
        const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
        if (!choice || typeof choice.message !== "object" || choice.message === null)
          throw malformedReply("the body has no choices[0].message");
        const content = choice.message.content;
        if (content !== null && content !== undefined && typeof content !== "string")
          throw malformedReply("choices[0].message.content is not a string");
        const tokens = usageFromWire("openai", body);
        if (!tokens)
          throw malformedReply("the body has no usage object (tokens cannot be counted)");
        return {
          content: content ?? "",
          tokens,
          ...(typeof body.model === "string" ? { model: body.model } : {}),
        };
      }),
  };
}
