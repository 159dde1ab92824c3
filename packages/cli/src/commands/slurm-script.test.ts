import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

const KEY = "sk-test-secret-value-0123456789";
const base = [
  "slurm",
  "script",
  "--config",
  "configs/mini-swe-agent/gpt-5.4.yaml",
  "--shards",
  "4",
];

async function script(extra: string[], env: Record<string, string> = {}) {
  const io = captureIO({ env });
  const code = await runCli([...base, "--out", "results/shards", ...extra], io);
  return { code, text: io.out(), err: io.err() };
}

describe("distdebug slurm script", () => {
  it("prints an array of one task per shard that requeues and names the key variable, never its value", async () => {
    const { code, text, err } = await script(
      ["--partition", "cpu", "--time", "4:00:00", "--mem", "8G", "--parallelism", "2"],
      { OPENAI_API_KEY: KEY },
    );
    expect(code, err).toBe(0);
    expect(text).not.toContain(KEY);
    const directives = text.split("\n").filter((line) => line.startsWith("#SBATCH"));
    expect(directives).toEqual([
      "#SBATCH --job-name=distdebug-mini-swe-agent-gpt-5.4",
      "#SBATCH --array=1-4%2",
      "#SBATCH --requeue",
      "#SBATCH --export=ALL",
      "#SBATCH --open-mode=append",
      "#SBATCH --output=slurm-%x-%A_%a.out",
      "#SBATCH --partition=cpu",
      "#SBATCH --time=4:00:00",
      "#SBATCH --mem=8G",
    ]);
    expect(text).toContain('if [ -z "${OPENAI_API_KEY:-}" ]; then');
    expect(text).toContain('cd "$SLURM_SUBMIT_DIR"');
    expect(text).toContain(
      "exec distdebug run --config configs/mini-swe-agent/gpt-5.4.yaml --shard-count 4 --results-dir results/shards --json",
    );
    expect(spawnSync("bash", ["-n"], { input: text }).status).toBe(0);
  });

  it("passes every value to distdebug as one word, whatever it holds (run by bash)", async () => {
    const dir = await testdir();
    // A stand-in for distdebug that prints the words it was given, one a line.
    const fake = join(dir, "it's a $(touch pwned) cli");
    await writeFile(fake, '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
    const out = `${dir}/out dir/'quoted' "double" $HOME \`id\``;
    const bug = "zoo*; touch pwned";
    const { code, text } = await script(["--out", out, "--bug", bug, "--cli", fake]);
    expect(code).toBe(0);
    await writeFile(join(dir, "job.sbatch"), text);
    const run = spawnSync("bash", ["job.sbatch"], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", SLURM_SUBMIT_DIR: dir, OPENAI_API_KEY: KEY },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split("\n").slice(0, -1)).toEqual([
      "run",
      "--config",
      "configs/mini-swe-agent/gpt-5.4.yaml",
      "--shard-count",
      "4",
      "--results-dir",
      out,
      "--bug",
      bug,
      "--json",
    ]);
    await expect(readFile(join(dir, "pwned"))).rejects.toThrow(/ENOENT/);
  });

  it("stops a task whose submitter had no API key, naming the variable", async () => {
    const dir = await testdir();
    const { text } = await script([]);
    await writeFile(join(dir, "job.sbatch"), text);
    const run = spawnSync("bash", ["job.sbatch"], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", SLURM_SUBMIT_DIR: dir },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/OPENAI_API_KEY is not set; export it before sbatch/);
  });

  it("refuses #SBATCH values Slurm would not take, and needs --config, --shards and --out", async () => {
    const bad = await script(["--time", "1; rm -rf /"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--time: "1; rm -rf \/" is not a value Slurm takes/);
    const io = captureIO();
    expect(await runCli(base, io)).toBe(2);
    expect(io.err()).toMatch(/--out is required/);
  });
});
