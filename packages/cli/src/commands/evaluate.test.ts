import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseDiagnosisScores } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { cliNodeArgs } from "../testing/spawn-cli.js";

const raft = [
  "package raft",
  "",
  "func (r *raft) Step(m Message) error {",
  "\tif m.Term > r.Term {",
  "\t\tr.becomeFollower(m.Term)",
  "\t}",
  "\treturn nil",
  "}",
  "",
].join("\n");

const gold = {
  format: "distdebug.gold/1",
  incidentId: "etcd-1",
  blocks: [{ path: "raft/raft.go", startLine: 4, endLine: 6 }],
  fix: { commit: "0123456789abcdef0123456789abcdef01234567" },
};

function diagnosis(blocks: unknown[]) {
  return JSON.stringify({ format: "distdebug.diagnosis/1", incidentId: "etcd-1", blocks });
}

/** `distdebug evaluate` of the files `setup` writes. */
const EVALUATE = [
  "evaluate",
  "--gold",
  "gold.json",
  "--diagnosis",
  "diagnosis.json",
  "--source",
  "src",
];

async function setup(diagnosisText: string) {
  return testdir({
    "src/raft/raft.go": raft,
    "gold.json": JSON.stringify(gold),
    "diagnosis.json": diagnosisText,
  });
}

describe("distdebug evaluate", () => {
  it("prints the scores as JSON", async () => {
    const dir = await setup(diagnosis([{ path: "raft/raft.go", startLine: 4, endLine: 4 }]));
    const io = captureIO({ cwd: dir });
    const args = EVALUATE;
    expect(await runCli(args, io)).toBe(0);
    // R: the 7 non-blank lines of raft.go; B = max(20, floor(0.02 * 7)) = 20.
    expect(io.err()).toBe(
      "repository: 7 non-blank source lines in 1 files; coverage row budget 20\n",
    );
    const scores = parseDiagnosisScores(io.out());
    // The if header (line 4) reaches the gold block 4-6 (if header + its statement).
    expect(scores.metrics.blockCoverage).toBe(1);
    expect(scores.metrics.blockPrecision).toBe(1);
    expect(scores.counts.goldAtoms).toBe(2);
    const again = captureIO({ cwd: dir });
    await runCli(args, again);
    expect(again.out()).toBe(io.out());
  });

  it("--out writes the file atomically and prints a summary", async () => {
    const dir = await setup(diagnosis([{ path: "raft/raft.go" }]));
    const io = captureIO({ cwd: dir });
    const code = await runCli([...EVALUATE, "--out", "out/scores.json"], io);
    expect(code).toBe(0);
    expect(io.out()).toMatch(
      /^wrote out\/scores.json: block coverage 0.000, block precision 0.400, file coverage 1.000/,
    );
    const scores = parseDiagnosisScores(await readFile(join(dir, "out/scores.json"), "utf8"));
    // A path-only span names the file: file credit, never block coverage (however small).
    expect(scores.spans[0]?.kind).toBe("file");
    expect(scores.spans[0]?.earnsCoverage).toBe(false);
  });

  it("an invalid diagnosis scores 0 with valid: false", async () => {
    const dir = await setup("{ not json");
    const io = captureIO({ cwd: dir });
    expect(await runCli(EVALUATE, io)).toBe(0);
    const scores = parseDiagnosisScores(io.out());
    expect(scores.valid).toBe(false);
    expect(scores.warnings[0]?.message).toMatch(/not valid JSON/);
  });

  it("a missing source folder or option is a one-line error with exit 2", async () => {
    const dir = await setup(diagnosis([]));
    const io = captureIO({ cwd: dir });
    expect(
      await runCli(
        ["evaluate", "--gold", "gold.json", "--diagnosis", "diagnosis.json", "--source", "nope"],
        io,
      ),
    ).toBe(2);
    expect(io.err()).toBe(
      `distdebug evaluate: --source ${join(dir, "nope")}: no such folder; expected the source tree at the buggy revision\n`,
    );
    const usage = captureIO({ cwd: dir });
    expect(await runCli(["evaluate", "--gold", "gold.json"], usage)).toBe(2);
    expect(usage.err()).toContain("--diagnosis is required");
  });
});

describe("distdebug evaluate: the scoring parameters", () => {
  it("are options, recorded in the scores with R and B", async () => {
    const dir = await setup(
      diagnosis([
        { path: "raft/raft.go", startLine: 3, endLine: 3 },
        { path: "raft/raft.go", startLine: 4, endLine: 4 },
      ]),
    );
    const io = captureIO({ cwd: dir });
    const args = [
      ...EVALUATE,
      "--coverage-span-count",
      "1",
      "--coverage-row-floor",
      "1",
      "--coverage-repo-share",
      "0.5",
      "--coverage-row-budget",
      "300",
      "--coverage-span-limit",
      "30",
      "--max-diagnosis-blocks",
      "5",
    ];
    expect(await runCli(args, io)).toBe(0);
    const scores = parseDiagnosisScores(io.out());
    expect(scores.parameters).toEqual({
      coverageSpanLimit: 30,
      coverageSpanCount: 1,
      coverageRowBudget: 300,
      coverageRowFloor: 1,
      coverageRepoShare: 0.5,
      coverageFileFloor: 3,
      maxDiagnosisBlocks: 5,
    });
    // B = min(300, max(1, floor(0.5 * 7))) = 3.
    expect(scores.counts.repositoryRows).toBe(7);
    expect(scores.counts.coverageBudget).toBe(3);
    // Only the first span may earn: the second, which holds the gold, does not.
    expect(scores.spans.map((span) => span.earnsCoverage)).toEqual([true, false]);
    expect(scores.metrics.blockCoverage).toBe(0);
  });

  it("a bad value is a usage error naming its option", async () => {
    const dir = await setup(diagnosis([]));
    const io = captureIO({ cwd: dir });
    expect(await runCli([...EVALUATE, "--coverage-repo-share", "2"], io)).toBe(2);
    expect(io.err()).toContain('--coverage-repo-share: expected a share in (0, 1], found "2"');
  });
});

describe("distdebug evaluate and validate agree on validity", () => {
  const many = (count: number) =>
    Array.from({ length: count }, () => ({ path: "raft/raft.go", startLine: 4 }));
  it.each([
    ["a good diagnosis", [{ path: "raft/raft.go", startLine: 4 }], [], true],
    [
      "one bad block among good ones",
      [...many(2), { path: "raft/raft.go", startLine: 0 }],
      [],
      false,
    ],
    ["201 blocks", many(201), [], false],
    [
      "201 blocks with --max-diagnosis-blocks 201",
      many(201),
      ["--max-diagnosis-blocks", "201"],
      true,
    ],
  ])("%s", async (_name, blocks, options, valid) => {
    const dir = await setup(diagnosis(blocks));
    const checked = captureIO({ cwd: dir });
    expect(await runCli(["validate", "diagnosis.json", ...options], checked)).toBe(valid ? 0 : 1);
    const io = captureIO({ cwd: dir });
    expect(await runCli([...EVALUATE, ...options], io)).toBe(0);
    const scores = parseDiagnosisScores(io.out());
    expect(scores.valid).toBe(valid);
    if (!valid) {
      // The same problem, told the same way.
      const problem = checked.out().split("\n")[1]?.trim();
      expect(scores.warnings[0]?.message).toContain(problem);
    }
  });
});

describe("distdebug evaluate stops on SIGTERM", () => {
  it("exits 130 mid-way through a huge diagnosis, writing nothing", async () => {
    // 100,000 whole-file blocks of a 3,000-line file: minutes of scoring if never stopped.
    const big = Array.from({ length: 3_000 }, (_, i) => `v${i} = ${i}\n`).join("");
    const dir = await testdir({
      "src/big.py": big,
      "gold.json": JSON.stringify({
        ...gold,
        blocks: [{ path: "big.py", startLine: 1, endLine: 1 }],
      }),
    });
    await writeFile(
      join(dir, "diagnosis.json"),
      diagnosis(Array.from({ length: 100_000 }, () => ({ path: "big.py" }))),
    );
    const child = spawn(
      process.execPath,
      [...cliNodeArgs(), ...EVALUATE, "--max-diagnosis-blocks", "100000", "--out", "scores.json"],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true" } },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let stderr = "";
    // The repository line comes once the signal handlers are in place and scoring begins.
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (stderr.includes("repository: ")) resolve();
      });
      void exited.then(() => resolve());
    });
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
    expect(stderr).toContain("interrupted: nothing was written");
    await expect(readFile(join(dir, "scores.json"))).rejects.toThrow(/ENOENT/);
  }, 120_000);
});
