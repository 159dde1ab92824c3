import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  parseAttempt,
  parseDiagnosis,
  parseDiagnosisScores,
  parseTrajectory,
} from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

/** Runs `distdebug run --config <config> --bug leasekv-77 --runs 1` in a fresh folder, no key set. */
async function runMock(config: string, extra: string[] = []) {
  const work = await testdir();
  const io = captureIO({ cwd: work, env: { HOME: work } });
  const code = await runCli(
    ["run", "--config", config, "--bug", "leasekv-77", "--runs", "1", "--out", "results", ...extra],
    io,
  );
  return { code, io, dir: join(work, "results/leasekv-77/attempt-1"), work };
}

const commandsOf = async (dir: string) =>
  parseTrajectory(await readFile(join(dir, "trajectory.json"))).steps.flatMap((step) =>
    step.type === "command" ? [step.command] : [],
  );

describe("model.provider mock: a dry run without network or key", () => {
  it("configs/mock/mini.yaml: the built-in script explores, writes a scored diagnosis and submits", async () => {
    const { code, io, dir } = await runMock(join(repoRoot, "configs/mock/mini.yaml"));
    expect(code, io.err()).toBe(0);
    const attempt = parseAttempt(await readFile(join(dir, "attempt.json"), "utf8"));
    expect(attempt.status).toBe("succeeded");
    const scores = parseDiagnosisScores(await readFile(join(dir, "diagnosis_scores.json")));
    expect(scores.metrics.blockCoverage).toBeTypeOf("number");
    // Outside a terminal, a line per phase and one for the result.
    for (const phase of ["workspace", "agent", "scoring"])
      expect(io.err()).toContain(`leasekv-77 attempt 1: ${phase}\n`);
    expect(io.err()).toMatch(/leasekv-77 attempt 1: succeeded coverage \d+\.\d precision/);
    const commands = await commandsOf(dir);
    expect(commands[0]).toBe("ls");
    expect(commands[1]).toMatch(/^grep -rnI -E /);
    expect(commands[2]).toMatch(/^cat -n '[^']+' \| sed -n '\d+,\d+p'$/);
    expect(commands.at(-1)).toBe("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
    const diagnosis = parseDiagnosis(await readFile(join(dir, "diagnosis.json")));
    expect(diagnosis.incidentId).toBe("leasekv-77");
    // The block is the file the grep found and the script read.
    expect(commands[2]).toContain(`'${diagnosis.blocks[0]?.path}'`);
    const trajectory = parseTrajectory(await readFile(join(dir, "trajectory.json")));
    expect(trajectory.exitStatus).toBe("submitted");
    expect(trajectory.usage.calls).toBe(5);
  });

  it("configs/mock/mini-scripted.yaml: replies from the script file (relative to the config), scored", async () => {
    const { code, io, dir } = await runMock(join(repoRoot, "configs/mock/mini-scripted.yaml"));
    expect(code, io.err()).toBe(0);
    const scores = parseDiagnosisScores(await readFile(join(dir, "diagnosis_scores.json")));
    expect(scores.metrics.blockCoverage).toBe(0.5);
    expect(scores.metrics.blockPrecision).toBe(1);
    expect((await commandsOf(dir)).slice(0, 3)).toEqual([
      "ls",
      'grep -rn "revoke" --include=*.go . | head -n 20',
      "cat -n lease/lessor.go | sed -n '135,160p'",
    ]);
  });

  it("a bad script is one error naming the file and the entry, before any attempt", async () => {
    const work = await testdir();
    await writeFile(join(work, "replies.yaml"), "- command: ls\n- {cmd: ls}\n");
    await writeFile(
      join(work, "mock.yaml"),
      "agent:\n  type: mini\nmodel:\n  provider: mock\n  name: m\n  script: replies.yaml\n",
    );
    const io = captureIO({ cwd: work, env: { HOME: work } });
    const code = await runCli(
      ["run", "--config", "mock.yaml", "--bug", "leasekv-77", "--out", "results"],
      io,
    );
    expect(code).toBe(2);
    expect(io.err()).toContain(
      `${join(work, "replies.yaml")}: [1]: expected the reply's text or {command, thought}`,
    );
    expect(io.out()).toBe("");
  });
});
