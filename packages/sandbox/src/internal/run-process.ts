import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readdirSync, readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { OutputBuffer } from "./output-buffer.js";

/** What {@link runProcess} runs and how it is bounded. */
export interface RunProcessInput {
  file: string;
  args: readonly string[];
  /** Environment of the spawned process itself (bwrap clears it again inside). */
  env: Record<string, string>;
  cwd?: string | undefined;
  uid?: number | undefined;
  gid?: number | undefined;
  stdin?: string | Uint8Array | undefined;
  timeoutMs: number;
  outputBytes: number;
  killOutputBytes: number;
  signal?: AbortSignal | undefined;
  /** Open fd 3 as a pipe and read bwrap's JSON status documents from it. */
  statusFd: boolean;
  /**
   * Bytes the child reads from fds 4, 5, … in order (pipes, closed after them): bwrap's
   * `--seccomp 4` and `--args`.
   */
  inputFds?: readonly Uint8Array[] | undefined;
  /** Called once bwrap reports the sandbox's init process. */
  onStatus?: (status: BwrapStatus) => void;
}

/** The first JSON status document of bwrap. */
export interface BwrapStatus {
  childPid: number;
  pidNamespace?: number | undefined;
}

/** What came out of one process. */
export interface RunProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
  outputLimitHit: boolean;
  /** bwrap only: the sandbox's init process, if bwrap got that far. */
  status?: BwrapStatus | undefined;
  /** bwrap only: the exit code bwrap reported for the command (absent when setup failed). */
  statusExitCode?: number | undefined;
  /** The process could not be started at all. */
  spawnError?: Error | undefined;
}

/** The close-on-exec bit in the `flags:` line of `/proc/self/fdinfo/<fd>` (octal). */
const O_CLOEXEC_FLAG = 0o2000000;

let inherited: { fds: number[]; nullFd: number } | undefined;

/**
 * The descriptors this process got from its parent without close-on-exec (Node marks only
 * a few low ones): a shell's `exec 50<secrets`, a CI runner's pipes. A child would inherit
 * them, so every child gets `/dev/null` at those numbers instead. Read once per process
 * (Node itself opens every descriptor close-on-exec, so the list only shrinks).
 */
function inheritedDescriptors(): { fds: number[]; nullFd: number } {
  if (inherited) return inherited;
  const fds: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    // No /proc: nothing to hide.
  }
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags?.[1] !== undefined && (Number.parseInt(flags[1], 8) & O_CLOEXEC_FLAG) === 0)
        fds.push(fd);
    } catch {
      // Closed meanwhile (the descriptor of the listing itself).
    }
  }
  inherited = { fds, nullFd: fds.length > 0 ? openSync("/dev/null", "r+") : -1 };
  return inherited;
}

/** The child's stdio: ours, then `/dev/null` over every inherited descriptor past it. */
function childStdio(own: ("pipe" | "ignore")[]): ("pipe" | "ignore" | number)[] {
  const { fds, nullFd } = inheritedDescriptors();
  const stdio: ("pipe" | "ignore" | number)[] = [...own];
  for (const fd of fds) {
    if (fd < own.length) continue;
    while (stdio.length < fd) stdio.push("ignore");
    stdio[fd] = nullFd;
  }
  return stdio;
}

/** After the process exits, how long to wait for its pipes to close before closing them. */
const PIPE_GRACE_MS = 2000;

/** What happened to one process so far; its fields feed {@link RunProcessResult}. */
interface ProcessState {
  readonly started: number;
  readonly stdout: OutputBuffer;
  readonly stderr: OutputBuffer;
  timedOut: boolean;
  aborted: boolean;
  outputLimitHit: boolean;
  status?: BwrapStatus | undefined;
  statusExitCode?: number | undefined;
  exited: boolean;
}

/** The spawned child and what happened to it. */
interface RunningProcess {
  readonly child: ChildProcess;
  readonly state: ProcessState;
}

/**
 * Spawns a process in its own process group, feeds stdin, captures capped output and kills
 * it (its group, and the sandbox init when known) at the timeout, on abort, or past the
 * output kill threshold. Always resolves.
 */
export function runProcess(input: RunProcessInput): Promise<RunProcessResult> {
  const state: ProcessState = {
    started: performance.now(),
    stdout: new OutputBuffer(input.outputBytes),
    stderr: new OutputBuffer(input.outputBytes),
    timedOut: false,
    aborted: false,
    outputLimitHit: false,
    exited: false,
  };
  return new Promise<RunProcessResult>((resolve) => {
    const running: RunningProcess = { child: spawnChild(input), state };
    const kill = () => killProcess(running);
    const disarm = armLimits(input, state, kill);
    captureOutput(running, input.killOutputBytes, kill);
    if (input.statusFd) readStatus(running, input.onStatus, kill);
    feedInputs(running.child, input);
    awaitEnd(running, (end) => {
      disarm();
      resolve({
        ...end,
        stdout: state.stdout,
        stderr: state.stderr,
        durationMs: performance.now() - state.started,
        timedOut: state.timedOut,
        aborted: state.aborted,
        outputLimitHit: state.outputLimitHit,
        status: state.status,
        statusExitCode: state.statusExitCode,
      });
    });
  });
}

/**
 * The child's descriptors: stdin (a pipe only when there is input), stdout, stderr, then fd 3
 * (bwrap's status pipe, or ignored when only input pipes follow) and one pipe per input.
 */
function stdioOf(input: RunProcessInput): ("pipe" | "ignore")[] {
  const stdio: ("pipe" | "ignore")[] = [
    input.stdin === undefined ? "ignore" : "pipe",
    "pipe",
    "pipe",
  ];
  const inputs = input.inputFds ?? [];
  if (input.statusFd || inputs.length > 0) stdio.push(input.statusFd ? "pipe" : "ignore");
  for (const _ of inputs) stdio.push("pipe");
  return stdio;
}

/** Spawns the child detached (its own process group), with `/dev/null` over inherited descriptors. */
function spawnChild(input: RunProcessInput): ChildProcess {
  return spawn(input.file, [...input.args], {
    stdio: childStdio(stdioOf(input)),
    env: input.env,
    detached: true,
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    ...(input.uid === undefined ? {} : { uid: input.uid }),
    ...(input.gid === undefined ? {} : { gid: input.gid }),
  });
}

/** SIGKILL to the sandbox's init when known (its whole pid namespace dies), and to the child's group. */
function killProcess({ child, state }: RunningProcess): void {
  if (state.exited) return;
  if (state.status !== undefined) {
    try {
      process.kill(state.status.childPid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** Kills at the timeout and on abort (recording which); returns the function that disarms both. */
function armLimits(input: RunProcessInput, state: ProcessState, kill: () => void): () => void {
  const timer = setTimeout(() => {
    state.timedOut = true;
    kill();
  }, input.timeoutMs);
  const onAbort = () => {
    state.aborted = true;
    kill();
  };
  if (input.signal?.aborted) onAbort();
  else input.signal?.addEventListener("abort", onAbort, { once: true });
  return () => {
    clearTimeout(timer);
    input.signal?.removeEventListener("abort", onAbort);
  };
}

/** Keeps stdout and stderr in their capped buffers; kills past `killOutputBytes` printed in all. */
function captureOutput(
  { child, state }: RunningProcess,
  killOutputBytes: number,
  kill: () => void,
) {
  const capture = (stream: Readable | null, buffer: OutputBuffer) => {
    stream?.on("data", (chunk: Buffer) => {
      buffer.push(chunk);
      if (
        !state.outputLimitHit &&
        state.stdout.totalBytes + state.stderr.totalBytes > killOutputBytes
      ) {
        state.outputLimitHit = true;
        kill();
      }
    });
    stream?.on("error", () => {});
  };
  capture(child.stdout, state.stdout);
  capture(child.stderr, state.stderr);
}

/**
 * Reads bwrap's JSON status documents from fd 3, one a line: the first names the sandbox's
 * init (reported to `onStatus`; killed at once if a limit was hit before), a later one the
 * command's exit code.
 */
function readStatus(
  { child, state }: RunningProcess,
  onStatus: RunProcessInput["onStatus"],
  kill: () => void,
): void {
  const stream = child.stdio[3] as Readable | null;
  let pending = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (text: string) => {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const document = statusDocument(line);
      if (document === undefined) continue;
      if (document.childPid !== undefined && state.status === undefined) {
        state.status = { childPid: document.childPid, pidNamespace: document.pidNamespace };
        onStatus?.(state.status);
        if (state.timedOut || state.aborted || state.outputLimitHit) kill();
      }
      if (document.exitCode !== undefined) state.statusExitCode = document.exitCode;
    }
  });
  stream?.on("error", () => {});
}

/** The numbers of one line of bwrap's status; undefined when the line is not JSON. */
function statusDocument(
  line: string,
):
  | { childPid: number | undefined; pidNamespace: number | undefined; exitCode: number | undefined }
  | undefined {
  if (line.trim() === "") return undefined;
  let document: unknown;
  try {
    document = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof document !== "object" || document === null) return undefined;
  const number = (key: string) => {
    const value = (document as Record<string, unknown>)[key];
    return typeof value === "number" ? value : undefined;
  };
  return {
    childPid: number("child-pid"),
    pidNamespace: number("pid-namespace"),
    exitCode: number("exit-code"),
  };
}

/** Writes each input to its pipe (fds 4, 5, …) and stdin, closing each after. */
function feedInputs(child: ChildProcess, input: RunProcessInput): void {
  for (const [index, bytes] of (input.inputFds ?? []).entries()) {
    const pipe = child.stdio[4 + index] as Writable | null;
    pipe?.on("error", () => {});
    pipe?.end(bytes);
  }
  if (child.stdin) {
    child.stdin.on("error", () => {});
    child.stdin.end(input.stdin);
  }
}

/** How the process ended: its exit code and signal, or why it never started. */
type ProcessEnd = Pick<RunProcessResult, "exitCode" | "signal" | "spawnError">;

/**
 * Calls `done` once: when the child's pipes close after it exits, or {@link PIPE_GRACE_MS}
 * after its exit (a background process may hold them), or when it could not be spawned.
 */
function awaitEnd({ child, state }: RunningProcess, done: (end: ProcessEnd) => void): void {
  let settled = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const finish = (end: ProcessEnd) => {
    if (settled) return;
    settled = true;
    if (graceTimer) clearTimeout(graceTimer);
    done(end);
  };
  child.on("error", (error) => {
    if (child.pid === undefined) finish({ exitCode: null, signal: null, spawnError: error });
  });
  child.on("exit", (exitCode, signal) => {
    state.exited = true;
    graceTimer = setTimeout(() => {
      for (const stream of child.stdio) stream?.destroy();
      finish({ exitCode, signal });
    }, PIPE_GRACE_MS);
    graceTimer.unref();
  });
  child.on("close", (exitCode, signal) => finish({ exitCode, signal }));
}
