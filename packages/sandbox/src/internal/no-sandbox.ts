import { resolve } from "node:path";
import { DistDebugError, type SandboxPolicy } from "@distdebug/schema";
import { sandboxDisposed } from "../errors.js";
import type { SandboxEvent } from "../events.js";
import { type ExecOptions, type ExecResult, NO_SANDBOX_WARNING, type Sandbox } from "../sandbox.js";
import { toExecResult } from "./exec-result.js";
import { runProcess } from "./run-process.js";

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
  let disposed = false;
  let commandCount = 0;
  const running = new Set<AbortController>();
  const folders: Record<string, string> = { DISTDEBUG_WORKSPACE: input.workspace };
  if (input.task !== undefined) folders.DISTDEBUG_TASK = input.task;
  if (input.output !== undefined) folders.DISTDEBUG_OUTPUT = input.output;

  const exec = async (
    command: string | readonly string[],
    options: ExecOptions = {},
  ): Promise<ExecResult> => {
    if (disposed) throw sandboxDisposed();
    const commandId = ++commandCount;
    emit({ type: "sandbox-warn", backend: "no-sandbox", message: NO_SANDBOX_WARNING });
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : [...command];
    const [file, ...args] = argv;
    if (file === undefined)
      throw new DistDebugError({ code: "INVALID_ARGUMENT", message: "an empty command" });
    const cwd = options.cwd === undefined ? input.workspace : mapPath(options.cwd, input);
    const controller = new AbortController();
    running.add(controller);
    const signal = options.signal
      ? AbortSignal.any([options.signal, controller.signal])
      : controller.signal;
    try {
      const raw = await runProcess({
        file,
        args,
        env: { ...policy.env, ...folders, ...(options.env ?? {}) },
        cwd,
        stdin: options.stdin,
        timeoutMs: options.timeoutMs ?? policy.limits.timeoutMs,
        outputBytes: policy.limits.outputBytes,
        killOutputBytes: policy.limits.killOutputBytes,
        signal,
        statusFd: false,
      });
      if (raw.aborted)
        throw new DistDebugError({ code: "ABORTED", message: "the command was aborted" });
      if (raw.spawnError)
        throw new DistDebugError({
          code: "SANDBOX_ERROR",
          message: `cannot start ${file}: ${raw.spawnError.message}`,
        });
      const result = toExecResult(raw);
      emit({
        type: "command-end",
        commandId,
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        truncated: result.truncated,
        limitHit: result.limitHit,
      });
      return result;
    } finally {
      running.delete(controller);
    }
  };

  return {
    backend: "no-sandbox",
    warning: NO_SANDBOX_WARNING,
    policy,
    exec,
    async dispose() {
      disposed = true;
      for (const controller of running) controller.abort();
    },
  };
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
