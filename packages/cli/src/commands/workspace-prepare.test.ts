import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { git, issueRepo } from "../testing/issue-repo.js";

describe("distdebug workspace prepare", () => {
  it("prepares a one-commit workspace, reports scrubs, and passes the leakage check", async () => {
    const source = await issueRepo();
    const base = await testdir();
    const io = captureIO({ cwd: base });
    const code = await runCli(
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
        "--fix-commit",
        source.commits[1] ?? "",
        "--cache-dir",
        "cache",
      ],
      io,
    );
    expect(io.err()).toBe("");
    expect(code).toBe(0);
    expect(io.out()).toMatch(
      /^prepared .*ws: 2 files .* built in \d+ ms\n {2}scrubbed "ISSUE-7" at src\/a.go:2\nleakage check: clean\n$/,
    );
    expect(readFileSync(join(base, "ws/src/a.go"), "utf8")).toBe(
      "package a\n// see issue for details\n",
    );
    expect(git(join(base, "ws"), "log", "--all", "--oneline").split("\n")).toHaveLength(1);

    const again = captureIO({ cwd: base });
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
          "ws2",
          "--needle",
          "ISSUE-7",
          "--fix-commit",
          source.commits[1] ?? "",
          "--cache-dir",
          "cache",
          "--json",
        ],
        again,
      ),
    ).toBe(0);
    const json = JSON.parse(again.out());
    expect(json).toMatchObject({
      ok: true,
      cacheHit: true,
      replacements: [{ file: "src/a.go", line: 2, needle: "ISSUE-7" }],
      leakage: { clean: true, findings: [] },
    });
  });

  it("exits 2 on bad usage and 1 with one line on a missing commit", async () => {
    const source = await issueRepo();
    const base = await testdir();
    let io = captureIO({ cwd: base });
    expect(await runCli(["workspace", "prepare", "--repo", source.dir, "--out", "ws"], io)).toBe(2);
    expect(io.err()).toContain("--commit is required");
    io = captureIO({ cwd: base });
    expect(
      await runCli(
        [
          "workspace",
          "prepare",
          "--repo",
          source.dir,
          "--commit",
          "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef",
          "--out",
          "ws",
          "--no-cache",
        ],
        io,
      ),
    ).toBe(1);
    expect(io.err()).toMatch(/^distdebug workspace prepare: .*commit deadbeef.* not found.*\n$/);
    expect(io.err().split("\n")).toHaveLength(2);
  });
  it("reads the deprecated DISTDEBUG_CACHE with a warning, into the one cache layout", async () => {
    const source = await issueRepo();
    const base = await testdir();
    const io = captureIO({ cwd: base, env: { DISTDEBUG_CACHE: join(base, "old-cache") } });
    const code = await runCli(
      [
        "workspace",
        "prepare",
        "--repo",
        source.dir,
        "--commit",
        source.commits[0] ?? "",
        "--out",
        "ws",
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.err()).toBe(
      `warning: DISTDEBUG_CACHE is deprecated, set DISTDEBUG_CACHE_DIR instead (using ${join(base, "old-cache")})\n`,
    );
    expect(readdirSync(join(base, "old-cache"))).toContain("workspaces");
  });
});
