import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseDiagnosisScores } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

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
    const args = [
      "evaluate",
      "--gold",
      "gold.json",
      "--diagnosis",
      "diagnosis.json",
      "--source",
      "src",
    ];
    expect(await runCli(args, io)).toBe(0);
    expect(io.err()).toBe("");
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
    const code = await runCli(
      [
        "evaluate",
        "--gold",
        "gold.json",
        "--diagnosis",
        "diagnosis.json",
        "--source",
        "src",
        "--out",
        "out/scores.json",
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.out()).toMatch(
      /^wrote out\/scores.json: block coverage 1.000, block precision 0.400/,
    );
    const scores = parseDiagnosisScores(await readFile(join(dir, "out/scores.json"), "utf8"));
    // A whole file of 5 significant rows is under the 40-row limit: it still earns coverage.
    expect(scores.spans[0]?.kind).toBe("file");
    expect(scores.spans[0]?.earnsCoverage).toBe(true);
  });

  it("an invalid diagnosis scores 0 with valid: false", async () => {
    const dir = await setup("{ not json");
    const io = captureIO({ cwd: dir });
    expect(
      await runCli(
        ["evaluate", "--gold", "gold.json", "--diagnosis", "diagnosis.json", "--source", "src"],
        io,
      ),
    ).toBe(0);
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
