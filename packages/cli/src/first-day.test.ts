import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { captureIO } from "./testing/capture-io.js";
import { repoRoot } from "./testing/spawn-cli.js";

/** The smaller rough edges a first-day user met (issue 30, item 10), each pinned here. */

async function cli(argv: string[], cwd?: string) {
  const io = captureIO(cwd === undefined ? {} : { cwd });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe("a first day with the CLI", () => {
  it.each([
    ["dataset", ["list", "show", "check", "stats", "verify"]],
    ["sandbox", ["exec", "probe"]],
    ["k8s", ["job"]],
    ["label", ["suggest"]],
    ["workspace", ["prepare"]],
  ])("`distdebug %s --help` exits 0 and lists the group's commands", async (group, words) => {
    const result = await cli([group, "--help"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    expect(result.out).toContain(`Usage: distdebug ${group} <command>`);
    for (const word of words) expect(result.out).toContain(`${group} ${word}`);
  });

  it("`run --help` lists --set, --cache-dir, --json and $DISTDEBUG_CACHE_DIR", async () => {
    const result = await cli(["run", "--help"]);
    expect(result.code).toBe(0);
    const usage = result.out.split("\n")[0] ?? "";
    for (const flag of ["--set", "--cache-dir", "--json"]) {
      expect(usage).toContain(flag);
      expect(result.out).toMatch(new RegExp(`^ {2}${flag}\\b`, "m"));
    }
    expect(result.out).toMatch(/--cache-dir <value> .*\$DISTDEBUG_CACHE_DIR/);
  });

  // Generous timeout: before the check, the typo was dropped and the attempt ran.
  it("a bad --set without --agent names the --set, not --agent, and exits 2 before any attempt", {
    timeout: 300_000,
  }, async () => {
    const dir = await testdir({});
    const args = ["run", "--set", "agent.stepLimt=3", "--bug", "leasekv-77", "--out", "r"];
    const result = await cli([...args, "--cache-dir", "cache"], dir);
    expect(result.code).toBe(2);
    expect(result.err).not.toMatch(/--agent/);
    expect(result.err).toContain(
      "the built-in baseline config + --set agent.stepLimt=3: not a valid run config",
    );
    expect(result.err).toContain(
      '$.agent.stepLimt: expected a known key (did you mean "stepLimit"?)',
    );
  });

  it("`validate --json` gives each file's issues as {path, expected, found}, as run --json does", async () => {
    const dir = await testdir({
      "diagnosis.json": JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "x",
        blocks: [{ path: "a.go", start_line: 3 }],
      }),
      "config.yaml": "agent:\n  type: mini\nenviroment: {}\n",
    });
    await writeFile(join(dir, "not.json"), "nope");
    const result = await cli(
      ["validate", "diagnosis.json", "config.yaml", "not.json", "--json"],
      dir,
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as {
      ok: boolean;
      files: { file: string; ok: boolean; code?: string; issues?: unknown[] }[];
    };
    expect(report.ok).toBe(false);
    expect(report.files.map(({ file, code, issues }) => ({ file, code, issues }))).toEqual([
      {
        file: "diagnosis.json",
        code: "INVALID_FILE",
        issues: [
          {
            path: "$.blocks[0].start_line",
            expected: 'a known key (did you mean "startLine"?)',
            found: 'the unknown key "start_line"',
          },
        ],
      },
      {
        file: "config.yaml",
        code: "INVALID_FILE",
        issues: [
          {
            path: "$.enviroment",
            expected: 'a known key (did you mean "environment"?)',
            found: 'the unknown key "enviroment"',
          },
        ],
      },
      { file: "not.json", code: "INVALID_FILE", issues: [] },
    ]);
  });

  // Generous timeout: before the check, this run prepared a workspace and a sandbox per attempt.
  it("a bind source typo and a missing program stop `run` before any attempt: exit 2, every problem listed", {
    timeout: 300_000,
  }, async () => {
    const dir = await testdir({
      "agent/agent.py": "print('hi')\n",
      "agent.yaml": [
        "agent:",
        "  type: command",
        "  command: [python4, /opt/agent/agent.py]",
        "environment:",
        "  sandbox:",
        "    readOnlyBinds:",
        "      - { source: ./agnet, target: /opt/agent }",
      ].join("\n"),
    });
    const dataset = join(repoRoot, "examples", "dataset");
    const args = ["run", "--config", "agent.yaml", "--dataset", dataset, "--bug", "leasekv-77"];
    const result = await cli([...args, "--out", "results", "--cache-dir", "cache"], dir);
    expect(result.code).toBe(2);
    expect(result.err).toContain("the run cannot start; 3 problems");
    expect(result.err).toContain(
      `$.environment.sandbox.readOnlyBinds[0].source: expected a host path that exists, found "${dir}/agnet", which does not exist`,
    );
    expect(result.err).toContain("$.agent.command[0]: expected a program on the sandbox's PATH");
    expect(result.err).toContain(
      "$.agent.command[1]: expected a file that exists inside the sandbox",
    );
    expect(result.err).not.toMatch(/infra-error|--rerun-infra/);
    expect(await readdir(dir)).not.toContain("results");
  });
});
