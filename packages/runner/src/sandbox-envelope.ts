import { realpath } from "node:fs/promises";
import { DistDebugError, type SandboxPolicy, sandboxEnvelopeProblems } from "@distdebug/schema";

/** Options of {@link checkSandboxEnvelope}. */
export interface CheckSandboxEnvelopeOptions {
  /** The effective policy of the run's attempts (the config's with the agent's binds). */
  policy: SandboxPolicy;
  /** The dataset, cache and results folders (they exist). */
  protectedFolders: readonly string[];
  /** Accept `backend: "no-sandbox"` (`distdebug run --unsafe-no-sandbox`). Default false. */
  allowNoSandbox?: boolean;
}

/** `path` as written and with its symbolic links resolved (when it exists). */
async function bothForms(path: string): Promise<string[]> {
  const real = await realpath(path).catch(() => path);
  return real === path ? [path] : [path, real];
}

/**
 * Refuses a run whose sandbox policy falls outside the official envelope (THREATS.md,
 * section 4; see `sandboxEnvelopeProblems`): binds that expose the dataset, the cache or the
 * results folders (compared as written and with links resolved), binds over system paths,
 * and `no-sandbox` unless `allowNoSandbox`. Returns the protected folders (links resolved)
 * that each attempt records in `attempt.json`; throws `INVALID_CONFIG` listing every problem.
 */
export async function checkSandboxEnvelope(
  options: CheckSandboxEnvelopeOptions,
): Promise<string[]> {
  const protectedPaths = [
    ...new Set((await Promise.all(options.protectedFolders.map(bothForms))).flat()),
  ];
  const resolvedBinds = await Promise.all(
    options.policy.readOnlyBinds.map(async (bind) => ({
      ...bind,
      source: await realpath(bind.source).catch(() => bind.source),
    })),
  );
  const check = { protectedPaths, allowNoSandbox: options.allowNoSandbox === true };
  const problems = new Set([
    ...sandboxEnvelopeProblems(options.policy, check),
    ...sandboxEnvelopeProblems({ ...options.policy, readOnlyBinds: resolvedBinds }, check),
  ]);
  if (problems.size > 0)
    throw new DistDebugError({
      code: "INVALID_CONFIG",
      message: `the run config's sandbox policy is outside the official envelope (THREATS.md, section 4); nothing was run:\n${[...problems].map((line) => `  - ${line}`).join("\n")}`,
      data: { problems: [...problems] },
    });
  return [...new Set(await Promise.all(options.protectedFolders.map((path) => realpath(path))))];
}
