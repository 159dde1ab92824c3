import { describe, expect, it } from "vitest";
import { addUsage, emptyUsage } from "./common.js";
import { type CallTokens, foldCacheUsage, usageFromWire, type WireProvider } from "./wire-usage.js";

const tokens = (inputTokens: number, outputTokens: number, cachedTokens: number): CallTokens => ({
  inputTokens,
  outputTokens,
  cachedTokens,
});

describe("usageFromWire", () => {
  const table: [string, WireProvider, unknown, CallTokens | undefined][] = [
    [
      "Anthropic with cache reads and writes",
      "anthropic",
      {
        input_tokens: 100,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 50,
        output_tokens: 20,
      },
      { ...tokens(1_050, 20, 900), cacheWrite1hTokens: 50 },
    ],
    [
      "Anthropic cache writes by lifetime (the part no lifetime covers counts as 1 hour)",
      "anthropic",
      {
        input_tokens: 100,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 70,
        cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 20 },
        output_tokens: 20,
      },
      { ...tokens(170, 20, 0), cacheWrite5mTokens: 30, cacheWrite1hTokens: 40 },
    ],
    [
      "Anthropic lifetimes above the total count in full",
      "anthropic",
      {
        input_tokens: 10,
        cache_creation_input_tokens: 5,
        cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 20 },
        output_tokens: 1,
      },
      { ...tokens(60, 1, 0), cacheWrite5mTokens: 30, cacheWrite1hTokens: 20 },
    ],
    [
      "OpenAI reasoning tokens (part of the completion count)",
      "openai",
      {
        prompt_tokens: 100,
        completion_tokens: 500,
        completion_tokens_details: { reasoning_tokens: 400 },
      },
      { ...tokens(100, 500, 0), reasoningTokens: 400 },
    ],
    [
      "OpenAI Responses reasoning above the output count is added to it",
      "openai",
      { input_tokens: 100, output_tokens: 50, output_tokens_details: { reasoning_tokens: 400 } },
      { ...tokens(100, 450, 0), reasoningTokens: 400 },
    ],
    [
      "Anthropic without cache fields",
      "anthropic",
      { input_tokens: 100, output_tokens: 20 },
      tokens(100, 20, 0),
    ],
    [
      "OpenAI Chat Completions with cached tokens",
      "openai",
      {
        prompt_tokens: 1_000,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 900 },
      },
      tokens(1_000, 20, 900),
    ],
    [
      "OpenAI Chat Completions without cache",
      "openai",
      { prompt_tokens: 1_000, completion_tokens: 20 },
      tokens(1_000, 20, 0),
    ],
    [
      "OpenAI Responses API",
      "openai",
      { input_tokens: 1_000, output_tokens: 20, input_tokens_details: { cached_tokens: 900 } },
      tokens(1_000, 20, 900),
    ],
    [
      "OpenAI cached above input is capped",
      "openai",
      { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 50 } },
      tokens(10, 1, 10),
    ],
    [
      "auto: an Anthropic body",
      "auto",
      {
        input_tokens: 100,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 50,
        output_tokens: 20,
      },
      { ...tokens(1_050, 20, 900), cacheWrite1hTokens: 50 },
    ],
    [
      "auto: a LiteLLM body (prompt_tokens already counts the cache)",
      "auto",
      {
        prompt_tokens: 1_050,
        completion_tokens: 20,
        cache_read_input_tokens: 900,
        prompt_tokens_details: { cached_tokens: 900 },
      },
      tokens(1_050, 20, 900),
    ],
    [
      "auto: OpenAI without cache",
      "auto",
      { prompt_tokens: 7, completion_tokens: 3 },
      tokens(7, 3, 0),
    ],
    [
      "garbage counts read as 0",
      "openai",
      { prompt_tokens: -5, completion_tokens: "x" },
      tokens(0, 0, 0),
    ],
  ];
  it.each(table)("%s", (_name, provider, usage, expected) => {
    expect(usageFromWire(provider, { usage })).toEqual(expected);
  });

  it("is undefined without a usage object", () => {
    expect(usageFromWire("openai", { choices: [] })).toBeUndefined();
    expect(usageFromWire("anthropic", "not json")).toBeUndefined();
  });
});

describe("addUsage", () => {
  const call = (costUsd: number | null) => ({ ...tokens(10, 2, 4), calls: 1, costUsd });

  it("adds tokens and calls, and keeps a cost only while every call had one", () => {
    const priced = addUsage(addUsage(emptyUsage(), call(0.5)), call(0.25));
    expect(priced).toEqual({ ...tokens(20, 4, 8), calls: 2, costUsd: 0.75 });
    expect(addUsage(priced, call(null)).costUsd).toBeNull();
    expect(addUsage(addUsage(emptyUsage(), call(null)), call(0.5)).costUsd).toBeNull();
  });

  it("treats usage of no calls as nothing", () => {
    expect(addUsage(emptyUsage(), emptyUsage())).toEqual(emptyUsage());
    expect(addUsage(addUsage(emptyUsage(), call(0.5)), emptyUsage()).costUsd).toBe(0.5);
  });
});

describe("foldCacheUsage", () => {
  it.for([
    {
      provider: "anthropic" as const,
      usage: {
        input_tokens: 40,
        output_tokens: 5,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 60,
        cache_creation: { ephemeral_5m_input_tokens: 60, ephemeral_1h_input_tokens: 0 },
      },
    },
    {
      provider: "openai" as const,
      usage: {
        prompt_tokens: 1_000,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 900 },
      },
    },
  ])("keeps $provider's totals and shows no cache use", ({ provider, usage }) => {
    const body = { usage: structuredClone(usage) };
    foldCacheUsage(provider, body);
    expect(usageFromWire(provider, body)).toEqual(tokens(1_000, 5, 0));
  });
});
