import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cliNodeArgs, repoRoot } from "./spawn-cli.js";

/** What {@link runCommandAgent} saw. */
export interface CommandAgentRun {
  code: number | null;
  stderr: string;
  /** The attempt's `diagnosis.json` text, or "" when there is none. */
  diagnosis: string;
  /** The attempt's `attempt.json`, or undefined when there is none. */
  attempt: { status: string; limitHit?: string; sandbox: Record<string, unknown> } | undefined;
}

/** Options of {@link runCommandAgent}. */
export interface RunCommandAgentOptions {
  /** The test's folder: `config.json`, `results` and (unless `cacheDir`) `cache` go there. */
  work: string;
  /** The agent's argv inside the sandbox. */
  command: string[];
  /** `environment.sandbox` of the config (binds, limits, backend). */
  sandbox?: Record<string, unknown>;
  /** More `distdebug run` arguments (`--unsafe-no-sandbox`). */
  args?: string[];
  /** More environment for the CLI (`DISTDEBUG_SANDBOX_LAUNCHER`). */
  env?: Record<string, string>;
  /** The cache folder; default `work/cache`. */
  cacheDir?: string;
  /** A descriptor of ours the CLI inherits at number `at`, as a wrapper script's `exec N<file`. */
  inherited?: { fd: number; at: number };
}

/**
 * Runs `distdebug run` on leasekv-77 of the example dataset, one attempt of a `command` agent,
 * in a child process as a user would, and reads what the attempt left.
 */
export async function runCommandAgent(options: RunCommandAgentOptions): Promise<CommandAgentRun> {
  const { work } = options;
  const config = {
    name: "command-agent",
    agent: { type: "command", command: options.command, wallTimeLimitSec: 60 },
    environment: { sandbox: options.sandbox ?? {} },
  };
  await writeFile(join(work, "config.json"), JSON.stringify(config));
  const args = [
    ...cliNodeArgs(),
    "run",
    "--config",
    join(work, "config.json"),
    "--dataset",
    join(repoRoot, "examples/dataset"),
    "--bug",
    "leasekv-77",
    "--runs",
    "1",
    "--out",
    join(work, "results"),
    "--cache-dir",
    options.cacheDir ?? join(work, "cache"),
    ...(options.args ?? []),
  ];
  const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "ignore", "pipe"];
  if (options.inherited !== undefined) {
    while (stdio.length < options.inherited.at) stdio.push("ignore");
    stdio.push(options.inherited.fd);
  }
  const child = spawn(process.execPath, args, {
    cwd: work,
    stdio,
    env: { ...process.env, CI: "true", ...options.env },
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const attemptDir = join(work, "results/leasekv-77/attempt-1");
  const diagnosis = await readFile(join(attemptDir, "diagnosis.json"), "utf8").catch(() => "");
  const attempt = await readFile(join(attemptDir, "attempt.json"), "utf8").then(
    (text) => JSON.parse(text) as CommandAgentRun["attempt"],
    () => undefined,
  );
  return { code, stderr, diagnosis, attempt };
}
