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
  /** The results folder. */
  out: string;
}

/** Options of {@link runCommandAgent}. */
export interface RunCommandAgentOptions {
  /** The test's folder: `<name>.json`, `results` and (unless `cacheDir`) `cache` go there. */
  work: string;
  /** The config's name, also its file name (`<name>.json`). Default `command-agent`. */
  name?: string;
  /** The results folder. Default `<work>/results`. */
  out?: string;
  /** The agent's wall-time limit. Default 60 s. */
  wallTimeLimitSec?: number;
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
  const name = options.name ?? "command-agent";
  const out = options.out ?? join(work, "results");
  const config = {
    name,
    agent: {
      type: "command",
      command: options.command,
      wallTimeLimitSec: options.wallTimeLimitSec ?? 60,
    },
    environment: { sandbox: options.sandbox ?? {} },
  };
  const configFile = join(work, `${name}.json`);
  await writeFile(configFile, JSON.stringify(config));
  const args = [
    ...cliNodeArgs(),
    "run",
    "--config",
    configFile,
    "--dataset",
    join(repoRoot, "examples/dataset"),
    "--bug",
    "leasekv-77",
    "--runs",
    "1",
    "--out",
    out,
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
  const attemptDir = join(out, "leasekv-77/attempt-1");
  const diagnosis = await readFile(join(attemptDir, "diagnosis.json"), "utf8").catch(() => "");
  const attempt = await readFile(join(attemptDir, "attempt.json"), "utf8").then(
    (text) => JSON.parse(text) as CommandAgentRun["attempt"],
    () => undefined,
  );
  return { code, stderr, diagnosis, attempt, out };
}
