import { DistDebugError, type SandboxPolicy } from "@distdebug/schema";
import { sandboxDisposed } from "../errors.js";
import type { LimitHit, SandboxEvent } from "../events.js";
import type { ExecOptions, ExecResult, Sandbox } from "../sandbox.js";
import { toExecResult } from "./exec-result.js";
import { type RunProcessInput, type RunProcessResult, runProcess } from "./run-process.js";

/** How a backend runs one command: the process to spawn and what it checks after. */
export interface CommandPlan {
  /** What to spawn; the limits, stdin and abort signal are added from the policy and the options. */
  process: Omit<
    RunProcessInput,
    "timeoutMs" | "outputBytes" | "killOutputBytes" | "stdin" | "signal"
  >;
  /** Throws the backend's error when the process did not start or could not be set up. */
  check(raw: RunProcessResult): void;
  /** A limit of the backend's own the command ran into (disk, memory), when it hit none itself. */
  limitHit?(): Promise<LimitHit | undefined>;
}

/** What a backend gives {@link createCommandRunner}. */
export interface CommandBackend {
  policy: SandboxPolicy;
  emit: (event: SandboxEvent) => void;
  /** Plans command number `commandId` (called once the sandbox is known not disposed). */
  plan(
    command: string | readonly string[],
    options: ExecOptions,
    commandId: number,
  ): Promise<CommandPlan>;
}

/**
 * The part of `exec` every backend shares: refused after `dispose()`, numbered, killed by its
 * own signal or by `dispose()`, bounded by the policy's timeout and output limits, `ABORTED`
 * when aborted, reported by a `command-end` event. `dispose()` kills what runs.
 */
export function createCommandRunner(backend: CommandBackend): Pick<Sandbox, "exec" | "dispose"> {
  const { policy, emit } = backend;
  const running = new Set<AbortController>();
  let disposed = false;
  let commandCount = 0;
  const exec = async (
    command: string | readonly string[],
    options: ExecOptions = {},
  ): Promise<ExecResult> => {
    if (disposed) throw sandboxDisposed();
    const commandId = ++commandCount;
    const plan = await backend.plan(command, options, commandId);
    const controller = new AbortController();
    running.add(controller);
    let raw: RunProcessResult;
    try {
      raw = await runProcess({
        ...plan.process,
        stdin: options.stdin,
        timeoutMs: options.timeoutMs ?? policy.limits.timeoutMs,
        outputBytes: policy.limits.outputBytes,
        killOutputBytes: policy.limits.killOutputBytes,
        signal: options.signal
          ? AbortSignal.any([options.signal, controller.signal])
          : controller.signal,
      });
    } finally {
      running.delete(controller);
    }
    if (raw.aborted)
      throw new DistDebugError({ code: "ABORTED", message: "the command was aborted" });
    plan.check(raw);
    const result = toExecResult(raw);
    if (result.limitHit === undefined) {
      const limitHit = await plan.limitHit?.();
      if (limitHit !== undefined) result.limitHit = limitHit;
    }
    emit({ type: "command-end", commandId, ...commandSummary(result) });
    return result;
  };
  return {
    exec,
    async dispose() {
      disposed = true;
      for (const controller of running) controller.abort();
    },
  };
}

/** The fields of a result a `command-end` event carries. */
function commandSummary(result: ExecResult) {
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    timedOut: result.timedOut,
    truncated: result.truncated,
    limitHit: result.limitHit,
  };
}
