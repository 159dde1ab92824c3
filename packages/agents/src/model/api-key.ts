import { DistDebugError, type ModelConfig } from "@distdebug/schema";

/** The environment variable holding the key: `model.apiKeyEnv`, else the provider's usual one. */
export function apiKeyEnvName(model: Pick<ModelConfig, "provider" | "apiKeyEnv">): string {
  return (
    model.apiKeyEnv ?? (model.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY")
  );
}

/** Whether the model needs an API key: every provider but `mock`. */
export function needsApiKey(model: Pick<ModelConfig, "provider">): boolean {
  return model.provider !== "mock";
}

/** The key of `provider: mock`, which needs none (never sent anywhere). */
export const MOCK_API_KEY = "mock-model-needs-no-key";

/**
 * Reads the model's API key from `env` (default `process.env`). Throws `MISSING_ENV` with a
 * one-line message naming the variable when it is unset or empty. `provider: mock` needs no
 * key (`MOCK_API_KEY`).
 *
 * @example
 * ```ts
 * const key = resolveApiKey(config.model, process.env); // throws: environment variable OPENAI_API_KEY is not set ...
 * ```
 */
export function resolveApiKey(
  model: Pick<ModelConfig, "provider" | "apiKeyEnv" | "name">,
  env: Record<string, string | undefined> = process.env,
): string {
  if (!needsApiKey(model)) return MOCK_API_KEY;
  const name = apiKeyEnvName(model);
  const key = env[name];
  if (key === undefined || key.trim() === "")
    throw new DistDebugError({
      code: "MISSING_ENV",
      message: `environment variable ${name} is not set: the model ${model.name} needs its API key there (or set model.apiKeyEnv to another variable)`,
      data: { variable: name },
    });
  return key;
}
