import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

const buggy = "package raft\n\nfunc tick(r *raft) {\n\tr.elapsed++\n\tr.campaign()\n}\n";
const fixed =
  "package raft\n\nfunc tick(r *raft) {\n\tr.elapsed++\n\tif r.promotable() {\n\t\tr.campaign()\n\t}\n}\n";

describe("distdebug label suggest", () => {
  it("proposes blocks from two trees", async () => {
    const dir = await testdir({
      "buggy/raft/tick.go": buggy,
      "fixed/raft/tick.go": fixed,
      "fixed/raft/new.go": "package raft\n",
    });
    const io = captureIO({ cwd: dir });
    expect(await runCli(["label", "suggest", "--buggy", "buggy", "--fixed", "fixed"], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual({
      blocks: [{ path: "raft/tick.go", startLine: 5, endLine: 5 }],
      newFiles: ["raft/new.go"],
      deletedFiles: [],
      unlabeledFiles: [],
    });
    expect(io.err()).toBe("note: new files map to no gold block: raft/new.go\n");
  });

  it("proposes blocks from a unified diff", async () => {
    const diff = [
      "--- a/raft/tick.go",
      "+++ b/raft/tick.go",
      "@@ -4,2 +4,3 @@ func tick(r *raft) {",
      " \tr.elapsed++",
      "+\tr.log()",
      " \tr.campaign()",
      "",
    ].join("\n");
    const dir = await testdir({ "buggy/raft/tick.go": buggy, "fix.diff": diff });
    const io = captureIO({ cwd: dir });
    expect(
      await runCli(["label", "suggest", "--buggy", "buggy", "--diff", "fix.diff", "--json"], io),
    ).toBe(0);
    expect(JSON.parse(io.out()).blocks).toEqual([
      { path: "raft/tick.go", startLine: 4, endLine: 5 },
    ]);
  });

  it("needs exactly one of --fixed and --diff", async () => {
    const dir = await testdir({ "buggy/a.go": buggy });
    const io = captureIO({ cwd: dir });
    expect(await runCli(["label", "suggest", "--buggy", "buggy"], io)).toBe(2);
    expect(io.err()).toContain("give either --fixed <dir> or --diff <file>");
  });
});
