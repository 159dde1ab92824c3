import {
  DistDebugError,
  describeZodIssues,
  SandboxPolicy,
  type SandboxPolicyInput,
} from "@distdebug/schema";

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
  const { issues, text } = describeZodIssues(result.error, input ?? {}, SandboxPolicy);
  throw new DistDebugError({
    code: "INVALID_CONFIG",
    message: `${source}: not a valid sandbox policy; ${issues.length} problem${issues.length === 1 ? "" : "s"}:\n${text}\nFix these fields of the sandbox policy.`,
    data: { source, issues },
  });
}
