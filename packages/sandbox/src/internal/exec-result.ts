import type { LimitHit } from "../events.js";
import type { ExecResult } from "../sandbox.js";
import type { RunProcessResult } from "./run-process.js";

/** The shell reports a child killed by SIGXFSZ (signal 25) as 153. */
const SIGXFSZ_EXIT = 128 + 25;

/** Turns a raw process result into the public result. */
export function toExecResult(raw: RunProcessResult): ExecResult {
  const limitHit: LimitHit | undefined = raw.timedOut
    ? "timeout"
    : raw.outputLimitHit
      ? "output"
      : raw.exitCode === SIGXFSZ_EXIT || raw.signal === "SIGXFSZ"
        ? "file-size"
        : undefined;
  // Killed by the sandbox: it kills the command's init process before bwrap itself, so bwrap
  // may still exit with the init's 137 before its own kill lands. Either way the command ended
  // by the sandbox's SIGKILL and has no exit code of its own.
  const killed = raw.timedOut || raw.outputLimitHit;
  return {
    exitCode: killed ? null : raw.exitCode,
    signal: killed ? (raw.signal ?? "SIGKILL") : raw.signal,
    stdout: raw.stdout.text(),
    stderr: raw.stderr.text(),
    stdoutBytes: raw.stdout.totalBytes,
    stderrBytes: raw.stderr.totalBytes,
    durationMs: Math.round(raw.durationMs * 1000) / 1000,
    timedOut: raw.timedOut,
    truncated: raw.stdout.truncated || raw.stderr.truncated,
    ...(limitHit === undefined ? {} : { limitHit }),
  };
}
