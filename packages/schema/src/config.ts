import { z } from "zod";
import { SandboxPolicy } from "./sandbox-policy.js";

/**
 * Prices in US dollars per million tokens, one per token class the providers bill. The
 * optional ones default to a multiple of the input or output price that is never below what
 * Anthropic and OpenAI charge (see {@link effectivePrices}); name them to meter less.
 */
export const ModelPrices = z.strictObject({
  /** Plain (uncached) prompt tokens. */
  inputPerMillion: z.number().min(0),
  /** Completion tokens. */
  outputPerMillion: z.number().min(0),
  /** Prompt tokens read from the provider's cache. Default: the input price. */
  cachedInputPerMillion: z.number().min(0).optional(),
  /** Prompt tokens written to the cache for 5 minutes (Anthropic). Default: 1.25 x the input price. */
  cacheWrite5mPerMillion: z.number().min(0).optional(),
  /** Prompt tokens written to the cache for 1 hour (Anthropic). Default: 2 x the input price. */
  cacheWrite1hPerMillion: z.number().min(0).optional(),
  /** Completion tokens spent reasoning. Default: the output price. */
  reasoningPerMillion: z.number().min(0).optional(),
});
/** Prices in US dollars per million tokens. */
export type ModelPrices = z.infer<typeof ModelPrices>;

/** Multiples of the input price for the cache-write classes a config does not price. */
export const CACHE_WRITE_PRICE_FACTORS = { "5m": 1.25, "1h": 2 } as const;

/**
 * Every price of `prices` with the defaults filled in: cached input at the input price,
 * 5-minute cache writes at 1.25 x and 1-hour writes at 2 x the input price (Anthropic's
 * multipliers), reasoning at the output price.
 *
 * @example
 * ```ts
 * effectivePrices({ inputPerMillion: 3, outputPerMillion: 15 }).cacheWrite1hPerMillion; // 6
 * ```
 */
export function effectivePrices(prices: ModelPrices): { [Class in keyof ModelPrices]-?: number } {
  return {
    inputPerMillion: prices.inputPerMillion,
    outputPerMillion: prices.outputPerMillion,
    cachedInputPerMillion: prices.cachedInputPerMillion ?? prices.inputPerMillion,
    cacheWrite5mPerMillion:
      prices.cacheWrite5mPerMillion ?? prices.inputPerMillion * CACHE_WRITE_PRICE_FACTORS["5m"],
    cacheWrite1hPerMillion:
      prices.cacheWrite1hPerMillion ?? prices.inputPerMillion * CACHE_WRITE_PRICE_FACTORS["1h"],
    reasoningPerMillion: prices.reasoningPerMillion ?? prices.outputPerMillion,
  };
}

/** The model an agent talks to. */
export const ModelConfig = z.strictObject({
  /** Wire protocol: OpenAI-compatible Chat Completions or the Anthropic Messages API. */
  provider: z.enum(["openai", "anthropic"]),
  /** Model name as the provider knows it. */
  name: z.string().min(1),
  /** Base URL of the API (vLLM, OpenRouter, Ollama, a local server). Default: the provider's. */
  baseUrl: z
    .string()
    .regex(/^(https?:\/\/|\$\{)/, "an http(s) URL or a ${VAR} reference")
    .optional(),
  /** Name of the environment variable holding the API key. Never the key itself. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  /**
   * Extra request parameters (temperature, max_tokens, reasoning effort), named as the
   * provider's API names them. The gateway enforces them over a command agent's request: a
   * token cap is a ceiling, every other parameter replaces the agent's value.
   */
  parameters: z.record(z.string(), z.unknown()).default({}),
  prices: ModelPrices.optional(),
  /** Request timeout in milliseconds. Default 600 s. */
  timeoutMs: z.number().int().positive().default(600_000),
  /** Retries on 429 and 5xx. Default 5. */
  maxRetries: z.number().int().min(0).default(5),
});
/** The model an agent talks to. */
export type ModelConfig = z.infer<typeof ModelConfig>;

/** The agent and its limits. */
export const AgentConfig = z.strictObject({
  /** `baseline` (offline), `mini` (built-in model loop) or `command` (your program). */
  type: z.enum(["baseline", "mini", "command"]),
  /** For `command`: the program and its arguments, run inside the sandbox. */
  command: z.array(z.string()).optional(),
  systemTemplate: z.string().optional(),
  instanceTemplate: z.string().optional(),
  formatErrorTemplate: z.string().optional(),
  /** Most model steps (0: no limit). Default 250. */
  stepLimit: z.number().int().min(0).default(250),
  /** Most dollars per attempt (0: no limit). Default 3. */
  costLimitUsd: z.number().min(0).default(3),
  /** Most model tokens (input plus output) per attempt, metered by the harness (0: no limit). Default 0. */
  tokenLimit: z.number().int().min(0).default(0),
  /** Most wall-clock seconds per attempt. Default 3600. */
  wallTimeLimitSec: z.number().positive().default(3600),
  /** For `baseline`: rows the diagnosis may name in total. Default 60. */
  rowBudget: z.number().int().positive().optional(),
});
/** The agent and its limits. */
export type AgentConfig = z.infer<typeof AgentConfig>;

/**
 * The run config YAML (`configs/<agent>/<model>.yaml`). Several files merge (later wins) and
 * `key=value` overrides apply on top; `${ENV}` references stay unresolved in the parsed
 * value and are resolved only at run time (see {@link resolveConfigEnv}).
 */
export const RunConfig = z.strictObject({
  format: z.literal("distdebug.config/1").default("distdebug.config/1"),
  /** Name of the configuration; the results folder defaults to `results/<name>`. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a name of letters, digits, . _ -")
    .optional(),
  agent: AgentConfig,
  model: ModelConfig.optional(),
  environment: z
    .strictObject({
      sandbox: SandboxPolicy.default(SandboxPolicy.parse({})),
      /** Characters of a command's output shown to the model. Default 10,000. */
      observationChars: z.number().int().positive().default(10_000),
    })
    .default({ sandbox: SandboxPolicy.parse({}), observationChars: 10_000 }),
  run: z
    .strictObject({
      attempts: z.number().int().min(1).default(3),
      concurrency: z.number().int().min(1).default(1),
      seed: z.number().int().min(0).default(0),
    })
    .default({ attempts: 3, concurrency: 1, seed: 0 }),
});
/** A parsed run config. */
export type RunConfig = z.infer<typeof RunConfig>;
/** A run config as written (defaults not yet applied). */
export type RunConfigInput = z.input<typeof RunConfig>;
