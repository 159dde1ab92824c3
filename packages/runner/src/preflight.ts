import { stat } from "node:fs/promises";
import { isAbsolute, join, posix } from "node:path";
import { type Agent, agentFor } from "@distdebug/agents";
import type { DatasetIncident } from "@distdebug/dataset";
import {
  DistDebugError,
  type FileIssue,
  formatIssues,
  type ReadOnlyBind,
  type RunConfig,
} from "@distdebug/schema";

/** Options of {@link checkRunInputs}. */
export interface CheckRunInputsOptions {
  /** The parsed run config (`${VAR}` references not resolved). */
  config: RunConfig;
  /** The incidents the run will attempt. */
  incidents: readonly DatasetIncident[];
  /** An agent to use instead of the config's (then its config checks are the caller's). */
  agent?: Agent;
  /** Where API keys are read from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Local repository mirrors the run reads (folders of mirrors or git folders); each must exist. */
  mirrors?: readonly string[];
}

/** Host folders every sandbox sees at the same path (`/usr`, and `/bin`, `/lib*` into it). */
const HOST_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** Sandbox folders made per attempt: nothing to check before the run. */
const ATTEMPT_FOLDERS = ["/workspace", "/task", "/output", "/tmp", "/run", "/proc", "/dev"];

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Where a sandbox path lives on the host: a path, `attempt` (made per attempt) or `outside`. */
function hostPathOf(path: string, binds: readonly ReadOnlyBind[]): string | "attempt" | "outside" {
  const normal = posix.normalize(path);
  const bound = binds
    .map((bind) => ({
      ...bind,
      target: posix.normalize(bind.target ?? bind.source).replace(/\/$/, ""),
    }))
    .filter((bind) => within(normal, bind.target))
    .sort((a, b) => b.target.length - a.target.length)[0];
  if (bound) return join(bound.source, normal.slice(bound.target.length));
  if (HOST_FOLDERS.some((folder) => within(normal, folder))) return normal;
  if (ATTEMPT_FOLDERS.some((folder) => within(normal, folder))) return "attempt";
  return "outside";
}

/** Each read-only bind's source is an absolute host path that exists. */
async function bindProblems(binds: readonly ReadOnlyBind[]): Promise<FileIssue[]> {
  const problems: FileIssue[] = [];
  for (const [index, bind] of binds.entries()) {
    const path = `$.environment.sandbox.readOnlyBinds[${index}].source`;
    if (!isAbsolute(bind.source))
      problems.push({
        path,
        expected: "an absolute host path",
        found: JSON.stringify(bind.source),
      });
    else if (!(await exists(bind.source)))
      problems.push({
        path,
        expected: "a host path that exists",
        found: `${JSON.stringify(bind.source)}, which does not exist`,
      });
  }
  return problems;
}

/** The command agent's program (on the sandbox's PATH or at a path inside) and its script arguments. */
async function programProblems(config: RunConfig, agent: Agent | undefined): Promise<FileIssue[]> {
  const command = config.agent.type === "command" ? (config.agent.command ?? []) : [];
  // The agent's own binds (the node binary and the gateway forwarder) are the harness's: present.
  const binds = [...config.environment.sandbox.readOnlyBinds, ...(agent?.binds?.(config) ?? [])];
  const problems: FileIssue[] = [];
  for (const [index, word] of command.entries()) {
    const path = `$.agent.command[${index}]`;
    if (index === 0 && !word.includes("/")) {
      const searchPath = config.environment.sandbox.env.PATH ?? "";
      const folders = searchPath.split(":").filter((folder) => folder.startsWith("/"));
      const found = await Promise.all(
        folders.map((folder) => {
          const host = hostPathOf(posix.join(folder, word), binds);
          return host === "attempt" || host === "outside" ? false : exists(host);
        }),
      );
      if (!found.includes(true))
        problems.push({
          path,
          expected: `a program on the sandbox's PATH (${searchPath}) or an absolute path inside the sandbox`,
          found: `${JSON.stringify(word)}, in none of those folders`,
        });
      continue;
    }
    if (!word.startsWith("/")) continue;
    const host = hostPathOf(word, binds);
    if (host === "attempt") continue;
    if (host === "outside" && index === 0)
      problems.push({
        path,
        expected:
          "a program inside the sandbox (under /usr, or under a target of environment.sandbox.readOnlyBinds)",
        found: `${JSON.stringify(word)}, which the sandbox does not see: bind its folder read-only`,
      });
    else if (host !== "outside" && !HOST_FOLDERS.some((folder) => within(word, folder)))
      if (!(await exists(host)))
        problems.push({
          path,
          expected: "a file that exists inside the sandbox",
          found: `${JSON.stringify(word)}, whose host path ${host} does not exist`,
        });
  }
  return problems;
}

/** The agent of the config, or the error that keeps it from being made and its problem. */
function agentOf(options: CheckRunInputsOptions): {
  agent?: Agent;
  error?: DistDebugError<unknown>;
  problems: FileIssue[];
} {
  if (options.agent) return { agent: options.agent, problems: [] };
  try {
    return { agent: agentFor(options.config, options.env ?? process.env), problems: [] };
  } catch (error) {
    if (!DistDebugError.isInstance(error)) throw error;
    const variable = (error.data as { variable?: string } | undefined)?.variable;
    const path =
      error.code === "MISSING_ENV"
        ? "$.model.apiKeyEnv"
        : `$.agent.type (${options.config.agent.type})`;
    const expected = variable
      ? `the environment variable ${variable} set`
      : "a complete agent config";
    return { error, problems: [{ path, expected, found: error.message }] };
  }
}

/** Each incident's repository stored as data, or at a local path, is there. */
async function datasetProblems(
  incidents: readonly DatasetIncident[],
  mirrors: readonly string[],
): Promise<FileIssue[]> {
  const problems: FileIssue[] = [];
  for (const incident of incidents) {
    const source = incident.repository;
    const local =
      source.kind === "history"
        ? join(source.dir, "history.json")
        : source.url.startsWith("file://")
          ? new URL(source.url).pathname
          : isAbsolute(source.url)
            ? source.url
            : undefined;
    if (local !== undefined && !(await exists(local)))
      problems.push({
        path: `${incident.dir}/incident.json: $.repository.url`,
        expected: "a repository that exists",
        found: `${JSON.stringify(local)}, which does not exist`,
      });
  }
  for (const [index, mirror] of mirrors.entries())
    if (!(await exists(mirror)))
      problems.push({
        path: `--mirror[${index}]`,
        expected: "a folder of mirrors or a git folder",
        found: `${JSON.stringify(mirror)}, which does not exist`,
      });
  return problems;
}

/**
 * Checks what a run needs before any attempt starts, and returns its agent: the agent can be
 * made (a mini agent has a model and its API key, a command agent a command), every read-only
 * bind source exists, the command agent's program is on the sandbox's PATH or inside the
 * sandbox and its script arguments under bind targets exist, every incident's local
 * repository and every mirror exists. All problems are reported together in one
 * `INVALID_CONFIG` error (the CLI exits 2) with `data.issues` `[{path, expected, found}]`,
 * instead of one `infra-error` per attempt; when the agent's own error (such as `MISSING_ENV`
 * for an API key) is the only problem, it is thrown as it is.
 *
 * @example
 * ```ts
 * const agent = await checkRunInputs({ config, incidents: dataset.incidents });
 * ```
 */
export async function checkRunInputs(options: CheckRunInputsOptions): Promise<Agent> {
  const { agent, error, problems } = agentOf(options);
  const agentProblems = problems.length;
  problems.push(
    ...(await bindProblems(options.config.environment.sandbox.readOnlyBinds)),
    ...(await programProblems(options.config, agent)),
    ...(await datasetProblems(options.incidents, options.mirrors ?? [])),
  );
  if (agent && problems.length === 0) return agent;
  // The agent's own error alone (a missing API key: MISSING_ENV) is clearest as it is.
  if (error && problems.length === agentProblems) throw error;
  throw new DistDebugError({
    code: "INVALID_CONFIG",
    message: `the run cannot start; ${problems.length} problem${problems.length === 1 ? "" : "s"} in the config, the agent or the dataset (no attempt was run):\n${formatIssues(problems)}`,
    data: { issues: problems },
  });
}
