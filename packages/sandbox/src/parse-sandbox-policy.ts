import type { SandboxPolicy } from "@distdebug/schema";
import { resolvePolicy } from "./internal/resolve-policy.js";

/**
 * Validates a sandbox policy value (as read from JSON or a config) and fills its defaults.
 * Throws `INVALID_CONFIG` naming `source`, each bad JSON path and what was expected.
 *
 * @example
 * ```ts
 * const policy = parseSandboxPolicy({ limits: { timeoutMs: 30_000 } }, { source: "policy.json" });
 * ```
 */
export function parseSandboxPolicy(
  value: unknown,
  options: { source?: string } = {},
): SandboxPolicy {
  return resolvePolicy(value, options.source);
}
