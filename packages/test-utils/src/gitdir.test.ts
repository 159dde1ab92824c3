import { execFileSync } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir } from "./gitdir.js";
import { testdir } from "./testdir.js";

describe("testdir", () => {
  it("creates files, modes and symlinks", async () => {
    const dir = await testdir({
      "a/b.txt": "hi\n",
      "run.sh": { content: "#!/bin/sh\n", mode: 0o755 },
      link: { symlink: "a/b.txt" },
    });
    expect(await readFile(join(dir, "link"), "utf8")).toBe("hi\n");
    expect((await stat(join(dir, "run.sh"))).mode & 0o111).not.toBe(0);
  });
});

describe("gitdir", () => {
  it("builds a repository that real git reads, with tags and branches", async () => {
    const repo = await gitdir({
      remote: "https://example.com/x.git",
      commits: [
        { files: { "a.txt": "one\n" }, message: "first" },
        {
          files: { "a.txt": "two\n", "b.txt": "b\n" },
          message: "second",
          tags: ["v1"],
          branch: "fix",
        },
        {
          files: { "b.txt": null },
          message: "third",
          annotatedTags: [{ name: "v2", message: "release" }],
        },
      ],
    });
    expect(repo.commits).toHaveLength(3);
    const log = execFileSync("git", ["log", "--format=%s", "main"], {
      cwd: repo.dir,
      encoding: "utf8",
    });
    expect(log.trim().split("\n")).toEqual(["third", "second", "first"]);
    expect(
      execFileSync("git", ["tag"], { cwd: repo.dir, encoding: "utf8" }).trim().split("\n"),
    ).toEqual(["v1", "v2"]);
    expect(
      execFileSync("git", ["ls-tree", "--name-only", "HEAD"], {
        cwd: repo.dir,
        encoding: "utf8",
      }).trim(),
    ).toBe("a.txt");
    expect(
      execFileSync("git", ["rev-parse", "fix"], { cwd: repo.dir, encoding: "utf8" }).trim(),
    ).toBe(repo.commits[1]);
  });
});
