import { posix } from "node:path";
import type { Attempt } from "./attempt.js";
import type { SandboxPolicy } from "./sandbox-policy.js";

/**
 * Sandbox paths a read-only bind may not sit at or under (THREATS.md, section 4): the system
 * the sandbox's own programs run from (`/usr`, `/bin`, `/sbin`, every `/lib*`, `/etc`) and
 * the mounts the harness makes itself (`/proc`, `/dev`, `/sys`, `/run`, `/tmp`,
 * `/workspace`, `/task`, `/output`). `/` itself is refused too.
 */
export const SYSTEM_SANDBOX_PATHS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib*",
  "/etc",
  "/proc",
  "/dev",
  "/sys",
  "/run",
  "/tmp",
  "/workspace",
  "/task",
  "/output",
] as const;

/** Options of {@link sandboxEnvelopeProblems}. */
export interface SandboxEnvelopeOptions {
  /**
   * Host folders no bind may contain or sit inside: the dataset, the cache and the results
   * folders of the run. Default none.
   */
  protectedPaths?: readonly string[];
  /** Accept `backend: "no-sandbox"` (development only). Default false. */
  allowNoSandbox?: boolean;
  /** The JSON path of the policy in the file the problems name. Default `environment.sandbox`. */
  jsonPath?: string;
}

/** `path` without `.`, `..` and trailing slashes. */
function normalized(path: string): string {
  return posix.normalize(path).replace(/(.)\/+$/, "$1");
}

/** True when `path` is `folder` or inside it. */
function isWithin(path: string, folder: string): boolean {
  return path === folder || folder === "/" || path.startsWith(`${folder}/`);
}

/** The system path a sandbox path is at or under, if any (`/lib*` matches `/lib`, `/lib64`...). */
function systemPathOf(target: string): string | undefined {
  if (target === "/") return "/";
  const top = `/${target.split("/")[1] ?? ""}`;
  return SYSTEM_SANDBOX_PATHS.find((path) =>
    path.endsWith("*") ? top.startsWith(path.slice(0, -1)) : top === path,
  );
}

/**
 * The ways a sandbox policy falls outside the official envelope (THREATS.md, section 4), one
 * sentence each naming the JSON path: a `no-sandbox` backend (unless `allowNoSandbox`), a
 * bind whose target is at or under a system path ({@link SYSTEM_SANDBOX_PATHS}), a bind whose
 * source contains or sits inside a protected folder. Empty when the policy is inside.
 * Relative or symlinked paths are compared as written: resolve them first.
 *
 * @example
 * ```ts
 * const problems = sandboxEnvelopeProblems(config.environment.sandbox, {
 *   protectedPaths: [dataset.dir, cacheDir, outDir],
 * });
 * if (problems.length > 0) console.error(problems.join("\n"));
 * ```
 */
export function sandboxEnvelopeProblems(
  policy: SandboxPolicy,
  options: SandboxEnvelopeOptions = {},
): string[] {
  const at = options.jsonPath ?? "environment.sandbox";
  const problems: string[] = [];
  if (policy.backend !== "bubblewrap" && options.allowNoSandbox !== true)
    problems.push(
      `${at}.backend: "${policy.backend}" runs the agent on the host unsandboxed; only "bubblewrap" is inside the official envelope (\`distdebug run --unsafe-no-sandbox\` allows it for development, and package and verify refuse such attempts)`,
    );
  const protectedPaths = (options.protectedPaths ?? []).map(normalized);
  for (const [index, bind] of policy.readOnlyBinds.entries()) {
    const where = `${at}.readOnlyBinds[${index}]`;
    const target = normalized(bind.target ?? bind.source);
    const system = systemPathOf(target);
    if (system !== undefined)
      problems.push(
        `${where}.target: "${target}" is at or under ${system}, a path the sandbox itself provides; bind toolchains elsewhere (for example under /opt)`,
      );
    const source = normalized(bind.source);
    for (const folder of protectedPaths)
      if (isWithin(source, folder) || isWithin(folder, source))
        problems.push(
          `${where}.source: "${source}" ${isWithin(source, folder) ? "sits inside" : "contains"} ${folder} (the dataset, cache or results folder of the run), which the agent must not see`,
        );
  }
  return problems;
}

/**
 * The ways a finished attempt's recorded sandbox falls outside the official envelope, one
 * sentence each (empty when inside): its policy as {@link sandboxEnvelopeProblems} sees it
 * against the protected folders it recorded, a backend other than bubblewrap, or no recorded
 * protected folders (an attempt of a version that did not check its policy: rerun it).
 * `package` and `verify` refuse attempts with problems.
 *
 * @example
 * ```ts
 * const problems = attemptEnvelopeProblems(parseAttempt(bytes, { source: path }));
 * ```
 */
export function attemptEnvelopeProblems(attempt: Attempt): string[] {
  const { sandbox } = attempt;
  const problems =
    sandbox.protectedPaths === undefined
      ? [
          "sandbox.protectedPaths: missing: the attempt was run by a version that did not check its sandbox policy against the dataset, cache and results folders; rerun it",
        ]
      : [];
  if (sandbox.backend !== "bubblewrap")
    problems.push(
      `sandbox.backend: "${sandbox.backend}": the attempt did not run in the bubblewrap sandbox; rerun it without --unsafe-no-sandbox`,
    );
  return [
    ...problems,
    ...sandboxEnvelopeProblems(sandbox.policy, {
      protectedPaths: sandbox.protectedPaths ?? [],
      allowNoSandbox: sandbox.backend !== "bubblewrap",
      jsonPath: "sandbox.policy",
    }),
  ];
}
