import { testdir } from "@distdebug/test-utils";
import { describe, expect, test } from "vitest";
import { fixtureText } from "../fixtures/language-suite.js";
import {
  directoryReader,
  suggestGoldBlocks,
  suggestGoldBlocksFromDiff,
  suggestGoldBlocksFromTrees,
} from "./index.js";

const PATH = "raft/raft.go";
const buggy = fixtureText("raft.go");
const lines = buggy.split("\n");

/** The fixture with 1-based line `at` replaced by `replacement` (no lines: removed). */
function edit(at: number, count: number, ...replacement: string[]): string {
  const copy = [...lines];
  copy.splice(at - 1, count, ...replacement);
  return copy.join("\n");
}

function suggest(fixed: string) {
  return suggestGoldBlocks({ files: [{ path: PATH, buggy, fixed }] }).blocks;
}

describe("suggestGoldBlocks", () => {
  test("a modified line maps to its atom", () => {
    expect(suggest(edit(25, 1, "\t\t\tinLease := r.checkQuorum && r.lead != None"))).toEqual([
      { path: PATH, startLine: 25, endLine: 25 },
    ]);
  });

  test("removed lines map to their atoms (the closing brace adds nothing)", () => {
    expect(suggest(edit(26, 3))).toEqual([{ path: PATH, startLine: 26, endLine: 27 }]);
  });

  test("a modified if header maps to the header atom only", () => {
    expect(suggest(edit(26, 1, "\t\t\tif inLease && r.Term > 0 {"))).toEqual([
      { path: PATH, startLine: 26, endLine: 26 },
    ]);
  });

  test("a pure insertion maps to the atoms before and after it in its container", () => {
    // After `err := r.step(r, m)` (37), before `if err != nil {` (38).
    expect(suggest(edit(38, 0, '\t\tr.logger.Debugf("step: %v", err)'))).toEqual([
      { path: PATH, startLine: 37, endLine: 38 },
    ]);
  });

  test("an insertion at the top of a body maps to the signature and the first statement", () => {
    expect(suggest(edit(51, 0, "\tif c == nil {", "\t\treturn nil", "\t}"))).toEqual([
      { path: PATH, startLine: 50, endLine: 51 },
    ]);
  });

  test("new, deleted and comment-only files are reported", () => {
    const suggestion = suggestGoldBlocks({
      files: [
        { path: "raft/quorum.go", buggy: undefined, fixed: "package raft\n" },
        { path: "raft/old.go", buggy: "package raft\n\nvar x = 1\n", fixed: undefined },
        { path: PATH, buggy, fixed: edit(18, 1, "// Step advances the state machine (docs).") },
      ],
    });
    expect(suggestion.newFiles).toEqual(["raft/quorum.go"]);
    expect(suggestion.deletedFiles).toEqual(["raft/old.go"]);
    expect(suggestion.unlabeledFiles).toEqual([PATH]);
    expect(suggestion.blocks).toEqual([{ path: "raft/old.go", startLine: 1, endLine: 3 }]);
  });
});

describe("from a unified diff or two trees", () => {
  const fixed = edit(38, 0, '\t\tr.logger.Debugf("step: %v", err)').replace(
    "\t\t\tinLease := r.lead != None",
    "\t\t\tinLease := r.checkQuorum && r.lead != None",
  );
  const expected = [
    { path: PATH, startLine: 25, endLine: 25 },
    { path: PATH, startLine: 37, endLine: 38 },
  ];

  test("a git diff of the fix gives the same blocks as the two texts", async () => {
    const diff = [
      "diff --git a/raft/raft.go b/raft/raft.go",
      "--- a/raft/raft.go",
      "+++ b/raft/raft.go",
      "@@ -23,5 +23,5 @@ func (r *raft) Step(m pb.Message) error {",
      " \tcase m.Term > r.Term:",
      " \t\tif m.Type == pb.MsgVote {",
      "-\t\t\tinLease := r.lead != None",
      "+\t\t\tinLease := r.checkQuorum && r.lead != None",
      " \t\t\tif inLease {",
      " \t\t\t\treturn nil",
      "@@ -36,3 +36,4 @@ func (r *raft) Step(m pb.Message) error {",
      " \tdefault:",
      " \t\terr := r.step(r, m)",
      '+\t\tr.logger.Debugf("step: %v", err)',
      " \t\tif err != nil {",
      "",
    ].join("\n");
    const dir = await testdir({ [PATH]: buggy });
    expect(suggestGoldBlocks({ files: [{ path: PATH, buggy, fixed }] }).blocks).toEqual(expected);
    const fromDiff = await suggestGoldBlocksFromDiff({ diff, readBuggy: directoryReader(dir) });
    expect(fromDiff.blocks).toEqual(expected);
  });

  test("two folders", async () => {
    const buggyDir = await testdir({ [PATH]: buggy, "README.md": "x\n" });
    const fixedDir = await testdir({
      [PATH]: fixed,
      "README.md": "x\n",
      "raft/new.go": "package raft\n",
    });
    const suggestion = await suggestGoldBlocksFromTrees({ buggyDir, fixedDir });
    expect(suggestion.blocks).toEqual(expected);
    expect(suggestion.newFiles).toEqual(["raft/new.go"]);
  });

  test("text that is not a diff is a clear error", async () => {
    await expect(
      suggestGoldBlocksFromDiff({
        diff: "hello\n",
        readBuggy: async () => undefined,
        source: "fix.patch",
      }),
    ).rejects.toThrow(/fix.patch: no file header/);
  });
});
