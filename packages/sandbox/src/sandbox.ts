import type { SandboxPolicy } from "@distdebug/schema";
import type { LimitHit, SandboxBackendName } from "./events.js";

/**
 * How bubblewrap isolates. `privileged`: the caller is root; pid, net, ipc, uts and cgroup
 * namespaces are unshared one by one (no user namespace) and the compiled launcher sets the
 * limits and drops to the policy's uid (refused without it). `user-namespace`: `--unshare-all` with a user namespace;
 * commands run as the caller's uid (as the policy's uid when the caller is root).
 */
export type SandboxMode = "privileged" | "user-namespace";

/**
 * The warning of the `no-sandbox` backend, also emitted as a `sandbox-warn` event.
 *
 * @example
 * ```ts
 * if (sandbox.warning === NO_SANDBOX_WARNING) attempt.warnings.push(sandbox.warning);
 * ```
 */
export const NO_SANDBOX_WARNING =
  "UNSAFE: the no-sandbox backend runs commands directly on the host with no isolation (network, files, secrets reachable); development only";

/** Options of one {@link Sandbox.exec}. */
export interface ExecOptions {
  /** Wall-clock timeout; the whole process tree is killed. Default: the policy's `limits.timeoutMs`. */
  timeoutMs?: number;
  /** Bytes written to the command's stdin (then closed). Default: stdin is /dev/null. */
  stdin?: string | Uint8Array;
  /** Variables added to (or replacing) the policy's environment for this command. */
  env?: Record<string, string>;
  /** Aborting kills the command and rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Working directory inside the sandbox. Default `/workspace`. */
  cwd?: string;
}

/** What one command did. */
export interface ExecResult {
  /** Exit code, or null when killed by a signal (timeout, abort, output limit). */
  exitCode: number | null;
  /** The signal that ended the command when the sandbox killed it, else null. */
  signal: string | null;
  /** Kept stdout (at most `limits.outputBytes`), plus a truncation marker line when cut. */
  stdout: string;
  stderr: string;
  /** Total bytes printed, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
  timedOut: boolean;
  /** True when stdout or stderr was cut. */
  truncated: boolean;
  limitHit?: LimitHit;
}

/** A sandbox bound to one workspace; run commands in it, then `dispose()`. */
export interface Sandbox {
  readonly backend: SandboxBackendName;
  /** bubblewrap only: how it isolates. */
  readonly mode?: SandboxMode;
  /** Set for the unsafe `no-sandbox` backend: record it with every result. */
  readonly warning?: string;
  readonly policy: SandboxPolicy;
  /** Runs a shell command line (`/bin/sh -c`) or an argv. Never throws for the command's failure. */
  exec(command: string | readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /** Kills running commands; later `exec` calls fail. */
  dispose(): Promise<void>;
}
