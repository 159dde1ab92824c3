import { spawn } from "node:child_process";
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

/**
 * Spawns a process in its own process group, feeds stdin, captures capped output and kills
 * it (its group, and the sandbox init when known) at the timeout, on abort, or past the
 * output kill threshold. Always resolves.
 */
export function runProcess(input: RunProcessInput): Promise<RunProcessResult> {
  const started = performance.now();
  const stdout = new OutputBuffer(input.outputBytes);
  const stderr = new OutputBuffer(input.outputBytes);
  const stdio: ("pipe" | "ignore")[] = [
    input.stdin === undefined ? "ignore" : "pipe",
    "pipe",
    "pipe",
  ];
  const inputs = input.inputFds ?? [];
  if (input.statusFd || inputs.length > 0) stdio.push(input.statusFd ? "pipe" : "ignore");
  for (const _ of inputs) stdio.push("pipe");

  return new Promise<RunProcessResult>((resolve) => {
    let timedOut = false;
    let aborted = false;
    let outputLimitHit = false;
    let status: BwrapStatus | undefined;
    let statusExitCode: number | undefined;
    let statusText = "";
    let exited = false;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const child = spawn(input.file, [...input.args], {
      stdio: childStdio(stdio),
      env: input.env,
      detached: true,
      ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
      ...(input.uid === undefined ? {} : { uid: input.uid }),
      ...(input.gid === undefined ? {} : { gid: input.gid }),
    });

    const kill = () => {
      if (status !== undefined && !exited) {
        // SIGKILL to the sandbox's pid 1 tears down its whole pid namespace.
        try {
          process.kill(status.childPid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      if (child.pid !== undefined && !exited) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }
    };

    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, input.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    if (input.signal?.aborted) onAbort();
    else input.signal?.addEventListener("abort", onAbort, { once: true });

    const watch = (stream: Readable | null, buffer: OutputBuffer) => {
      stream?.on("data", (chunk: Buffer) => {
        buffer.push(chunk);
        if (!outputLimitHit && stdout.totalBytes + stderr.totalBytes > input.killOutputBytes) {
          outputLimitHit = true;
          kill();
        }
      });
      stream?.on("error", () => {});
    };
    watch(child.stdout, stdout);
    watch(child.stderr, stderr);

    const statusStream = input.statusFd ? (child.stdio[3] as Readable | null) : null;
    statusStream?.setEncoding("utf8");
    statusStream?.on("data", (text: string) => {
      statusText += text;
      let newline = statusText.indexOf("\n");
      while (newline >= 0) {
        const line = statusText.slice(0, newline).trim();
        statusText = statusText.slice(newline + 1);
        newline = statusText.indexOf("\n");
        if (line === "") continue;
        try {
          const document = JSON.parse(line) as Record<string, unknown>;
          if (typeof document["child-pid"] === "number" && status === undefined) {
            status = {
              childPid: document["child-pid"],
              pidNamespace:
                typeof document["pid-namespace"] === "number"
                  ? document["pid-namespace"]
                  : undefined,
            };
            input.onStatus?.(status);
            if (timedOut || aborted || outputLimitHit) kill();
          }
          if (typeof document["exit-code"] === "number") statusExitCode = document["exit-code"];
        } catch {
          // Not a status document: ignore.
        }
      }
    });
    statusStream?.on("error", () => {});

    for (const [index, bytes] of inputs.entries()) {
      const pipe = child.stdio[4 + index] as Writable | null;
      pipe?.on("error", () => {});
      pipe?.end(bytes);
    }

    if (child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(input.stdin);
    }

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      input.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        signal,
        stdout,
        stderr,
        durationMs: performance.now() - started,
        timedOut,
        aborted,
        outputLimitHit,
        status,
        statusExitCode,
        spawnError,
      });
    };

    child.on("error", (error) => {
      if (child.pid === undefined) finish(null, null, error);
    });
    child.on("exit", (code, signal) => {
      exited = true;
      graceTimer = setTimeout(() => {
        for (const stream of child.stdio) stream?.destroy();
        finish(code, signal);
      }, PIPE_GRACE_MS);
      graceTimer.unref();
    });
    child.on("close", (code, signal) => finish(code, signal));
  });
}
