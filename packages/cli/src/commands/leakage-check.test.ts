import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { git, issueRepo } from "../testing/issue-repo.js";

describe("distdebug leakage-check", () => {
  it("exits 0 on a clean workspace and 1 with a finding list on leaks", async () => {
    const source = await issueRepo();
    const base = await testdir();
    expect(
      await runCli(
        [
          "workspace",
          "prepare",
          "--repo",
          source.dir,
          "--commit",
          source.commits[0] ?? "",
          "--out",
          "ws",
          "--needle",
          "ISSUE-7",
          "--no-cache",
        ],
        captureIO({ cwd: base }),
      ),
    ).toBe(0);
    const clean = captureIO({ cwd: base });
    expect(
      await runCli(
        [
          "leakage-check",
          "ws",
          "--needle",
          "ISSUE-7",
          "--repo",
          source.dir,
          "--fix-commit",
          source.commits[1] ?? "",
        ],
        clean,
      ),
    ).toBe(0);
    expect(clean.out()).toMatch(/^clean: 2 files and \d+ git objects scanned\n$/);

    git(join(base, "ws"), "tag", "leaked");
    execFileSync("sh", ["-c", "echo 'func fixTheRaceInSessionExpiry() {}' >> ws/src/a.go"], {
      cwd: base,
    });
    const leaky = captureIO({ cwd: base });
    expect(
      await runCli(
        [
          "leakage-check",
          "ws",
          "--needle",
          "ISSUE-7",
          "--repo",
          source.dir,
          "--fix-commit",
          source.commits[1] ?? "",
          "--json",
        ],
        leaky,
      ),
    ).toBe(1);
    const report = JSON.parse(leaky.out());
    expect(report.ok).toBe(false);
    expect(report.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "fix-line", file: "src/a.go", line: 3 }),
        expect.objectContaining({ kind: "git-metadata", file: ".git/refs/tags/leaked" }),
      ]),
    );
    const usage = captureIO({ cwd: base });
    expect(await runCli(["leakage-check", "ws", "--repo", source.dir], usage)).toBe(2);
    expect(usage.err()).toContain("--repo and --fix-commit go together");
  });
});
