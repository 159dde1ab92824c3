import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cliNodeArgs, repoRoot } from "./spawn-cli.js";

/** Options of {@link runShellAgent}. */
export interface RunShellAgentOptions {
  /** The test's folder: holds `agent/agent.sh`, the config and (by default) the results. */
  work: string;
  /** The config's name, also its file name (`<name>.json`). */
  name: string;
  /** Arguments after `/opt/agent/agent.sh`. Default none. */
  args?: string[];
  /** The results folder. Default `<work>/results`. */
  out?: string;
  /** The child's stdio. Default `["ignore", "pipe", "pipe"]`. */
  stdio?: ("ignore" | "pipe" | number)[];
}

/**
 * Runs `distdebug run` (a child process, real bubblewrap) on one attempt of the example
 * dataset's leasekv-77 with the shell agent `<work>/agent/agent.sh` as a command agent; the
 * cache is `<work>/cache`. Returns the exit code and what the CLI wrote on stderr.
 */
export async function runShellAgent(
  options: RunShellAgentOptions,
): Promise<{ code: number | null; stderr: string; out: string }> {
  const { work, name } = options;
  const out = options.out ?? join(work, "results");
  const config = {
    name,
    agent: {
      type: "command",
      command: ["/bin/sh", "/opt/agent/agent.sh", ...(options.args ?? [])],
      wallTimeLimitSec: 120,
    },
    environment: {
      sandbox: { readOnlyBinds: [{ source: join(work, "agent"), target: "/opt/agent" }] },
    },
  };
  const configFile = join(work, `${name}.json`);
  await writeFile(configFile, JSON.stringify(config));
  const args = ["run", "--config", configFile, "--dataset", join(repoRoot, "examples/dataset")];
  args.push("--bug", "leasekv-77", "--runs", "1", "--out", out, "--cache-dir", join(work, "cache"));
  const child = spawn(process.execPath, [...cliNodeArgs(), ...args], {
    cwd: work,
    stdio: options.stdio ?? ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true" },
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdout?.resume();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stderr, out };
}
