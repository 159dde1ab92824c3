import { execFile, spawn } from "node:child_process";
import { DistDebugError } from "@distdebug/schema";

let available: Promise<boolean> | undefined;

/** The environment for child `git` processes: no inherited repository or config overrides. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) env[key] = value;
  }
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  env.LC_ALL = "C";
  return env;
}

/** True when a working `git` binary is on PATH (checked once per process). */
export function hasGitBinary(): Promise<boolean> {
  available ??= new Promise((resolve) => {
    execFile("git", ["--version"], { env: gitEnv() }, (error) => resolve(!error));
  });
  return available;
}

/** Runs git and returns stdout as a Buffer; rejects with stderr on a non-zero exit. */
export function runGit(
  args: readonly string[],
  options: {
    cwd?: string;
    input?: string | Buffer;
    signal?: AbortSignal;
    /** Default {@link gitEnv}. */
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: options.cwd,
      env: options.env ?? gitEnv(),
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new DistDebugError({
            code: "WORKSPACE_ERROR",
            message: `git ${args.join(" ")} exited ${code}: ${Buffer.concat(err).toString("utf8").trim()}`,
            data: { args, exitCode: code },
          }),
        );
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}
