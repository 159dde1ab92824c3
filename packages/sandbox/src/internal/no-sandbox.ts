import { resolve } from "node:path";
import { DistDebugError, type SandboxPolicy } from "@distdebug/schema";
import type { SandboxEvent } from "../events.js";
import { NO_SANDBOX_WARNING, type Sandbox } from "../sandbox.js";
import { createCommandRunner } from "./command-runner.js";

/** Inputs of {@link createNoSandbox}. */
export interface NoSandboxInput {
  policy: SandboxPolicy;
  workspace: string;
  task?: string | undefined;
  output?: string | undefined;
  emit: (event: SandboxEvent) => void;
}

/**
 * The unsafe development backend: `/bin/sh -c` on the host in the workspace folder, with the
 * policy's environment (plus DISTDEBUG_WORKSPACE, DISTDEBUG_TASK, DISTDEBUG_OUTPUT naming the
 * host folders), the timeout (kills the process group only: `setsid` children survive) and
 * output caps. No other isolation or limit.
 */
export function createNoSandbox(input: NoSandboxInput): Sandbox {
  const { policy, emit } = input;
  const folders: Record<string, string> = { DISTDEBUG_WORKSPACE: input.workspace };
  if (input.task !== undefined) folders.DISTDEBUG_TASK = input.task;
  if (input.output !== undefined) folders.DISTDEBUG_OUTPUT = input.output;
  const runner = createCommandRunner({
    policy,
    emit,
    async plan(command, options) {
      emit({ type: "sandbox-warn", backend: "no-sandbox", message: NO_SANDBOX_WARNING });
      const [file, ...args] = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
      if (file === undefined)
        throw new DistDebugError({ code: "INVALID_ARGUMENT", message: "an empty command" });
      return {
        process: {
          file,
          args,
          env: { ...policy.env, ...folders, ...(options.env ?? {}) },
          cwd: options.cwd === undefined ? input.workspace : mapPath(options.cwd, input),
          statusFd: false,
        },
        check(raw) {
          if (raw.spawnError)
            throw new DistDebugError({
              code: "SANDBOX_ERROR",
              message: `cannot start ${file}: ${raw.spawnError.message}`,
            });
        },
      };
    },
  });
  return { backend: "no-sandbox", warning: NO_SANDBOX_WARNING, policy, ...runner };
}

/** Maps `/workspace/x`, `/task/x`, `/output/x` to the host folders; other paths as they are. */
function mapPath(path: string, input: NoSandboxInput): string {
  for (const [prefix, host] of [
    ["/workspace", input.workspace],
    ["/task", input.task],
    ["/output", input.output],
  ] as const) {
    if (host !== undefined && (path === prefix || path.startsWith(`${prefix}/`)))
      return resolve(host, `.${path.slice(prefix.length)}`);
  }
  return path;
}
