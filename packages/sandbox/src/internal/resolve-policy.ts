import { DistDebugError, SandboxPolicy, type SandboxPolicyInput } from "@distdebug/schema";

/**
 * Validates a sandbox policy and fills its defaults, or throws `INVALID_CONFIG` naming the
 * source, each bad JSON path, and what was expected there.
 */
export function resolvePolicy(
  input: SandboxPolicyInput | unknown,
  source = "sandbox policy",
): SandboxPolicy {
  const result = SandboxPolicy.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path
      .map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`))
      .join("");
    return `  $${path}: ${issue.message}`;
  });
  throw new DistDebugError({
    code: "INVALID_CONFIG",
    message: `${source}: not a valid sandbox policy; ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.join("\n")}`,
    data: { source, issues: result.error.issues },
  });
}
