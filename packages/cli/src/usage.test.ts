import { spawnSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { closest } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { createRunProgress } from "./render/run-progress.js";
import { captureIO } from "./testing/capture-io.js";
import { cliNodeArgs, repoRoot } from "./testing/spawn-cli.js";

async function cli(argv: string[]) {
  const io = captureIO();
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe("usage errors", () => {
  it("suggest the closest command for a typo, and exit 2", async () => {
    const result = await cli(["scroe", "results/x"]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/unknown command "scroe" \(did you mean score\?\)/);
    expect((await cli(["frobnicate"])).err).not.toMatch(/did you mean/);
  });

  it("list a group's subcommands when only the group is named", async () => {
    const result = await cli(["dataset"]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/choose a subcommand/);
    for (const word of ["list", "show", "check"]) expect(result.err).toContain(`dataset ${word}`);
    expect((await cli(["dataset", "chek", "x"])).err).toMatch(/did you mean check\?/);
  });

  it("name an unknown option in the CLI's words, with --json as JSON on stdout too", async () => {
    const result = await cli(["score", "results/x", "--atempts", "2", "--json"]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/unknown option --atempts \(did you mean --attempts\?\)/);
    expect(result.err).not.toMatch(/ERR_PARSE_ARGS/);
    expect(JSON.parse(result.out)).toEqual({
      ok: false,
      error: { code: "USAGE", message: "unknown option --atempts (did you mean --attempts?)" },
    });
  });

  it("treat a bad --agent and a bad --seed as usage errors (exit 2)", async () => {
    expect((await cli(["run", "--agent", "bogus"])).code).toBe(2);
    const seed = await cli(["score", "results/x", "--seed", "abc"]);
    expect(seed.code).toBe(2);
    expect(seed.err).toMatch(/--seed: expected a whole number/);
    expect((await cli(["score", "--help"])).out).toMatch(/--seed .*\(default 1\)/);
  });
});

describe("closest", () => {
  it("accepts plausible typos only", () => {
    expect(closest("atempts", ["attempts", "seed"])).toBe("attempts");
    expect(closest("sed", ["seed", "runs"])).toBe("seed");
    expect(closest("xyz", ["seed", "runs"])).toBeUndefined();
  });
});

describe("run --set without --config", () => {
  it("applies the override to the built-in config", async () => {
    const out = join(await testdir(), "results");
    const cache = await testdir();
    const argv = ["run", "--bug", "zklite-142", "--set", "run.attempts=1", "--out", out];
    expect((await cli([...argv, "--cache-dir", cache])).code).toBe(0);
    expect(await readdir(join(out, "zklite-142"))).toEqual(["attempt-1"]);
  }, 120_000);
});

describe("the progress line", () => {
  it("uses 80 columns when the terminal reports 0", () => {
    const io = captureIO({ isTTY: true, columns: 0 });
    const progress = createRunProgress(io, "tty");
    progress.onEvent({
      type: "run-start",
      name: "x",
      outDir: "/tmp/some/long/results/folder",
      incidents: 3,
      attempts: 9,
      pending: 9,
    });
    const lines = io.err().split("\r\u001b[2K").filter(Boolean);
    expect(Math.max(...lines.map((line) => line.length))).toBeGreaterThan(20);
  });
});

describe("a closed pipe", () => {
  it("ends the CLI quietly, without an EPIPE error", async () => {
    // Output larger than a pipe's buffer, read one byte of: later writes hit a closed pipe.
    const dir = await testdir({
      "Big.java": `class Big {\n${Array.from({ length: 6000 }, (_, i) => `  int f${i}() { return ${i}; }\n`).join("")}}\n`,
    });
    const args = cliNodeArgs()
      .map((arg) => `"${arg}"`)
      .join(" ");
    const command = `"${process.execPath}" ${args} atoms "${join(dir, "Big.java")}" | head -c 1 >/dev/null`;
    const result = spawnSync("bash", ["-c", command], { cwd: repoRoot, encoding: "utf8" });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|at /);
  }, 60_000);
});
