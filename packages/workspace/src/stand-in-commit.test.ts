import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { gitdir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { prepareWorkspace } from "./prepare-workspace.js";
import { standInForMissingBlobs } from "./stand-in-commit.js";
import { git } from "./testing/fixture-repo.js";

/** A repository whose snapshot lost two blobs (as mirrors that omit large files do). */
async function snapshotWithoutBlobs() {
  const repo = await gitdir({
    commits: [
      {
        message: "init",
        files: {
          "src/Main.java": "class Main {}\n",
          "test/resources/wal 0001": "a large binary log\n",
          "tools/gen.sh": { content: "#!/bin/sh\necho generated\n", mode: 0o755 },
        },
      },
    ],
  });
  const commit = repo.commits[0]!;
  for (const path of ["test/resources/wal 0001", "tools/gen.sh"]) {
    const blob = git(repo.dir, "rev-parse", `${commit}:${path}`);
    await rm(join(repo.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
  }
  return { repo, commit };
}

describe("standInForMissingBlobs", () => {
  it("gives a commit with empty files where the source lacks blobs, and the workspace prepares from it", async () => {
    const { repo, commit } = await snapshotWithoutBlobs();
    const dir = join(await testdir(), "workspace");
    await expect(prepareWorkspace({ source: repo.dir, commit, dir })).rejects.toThrow(/missing/);
    const standIn = await standInForMissingBlobs({
      source: repo.dir,
      commit,
      dir: join(await testdir(), "stand-in.git"),
    });
    expect(standIn?.missing).toEqual(["test/resources/wal 0001", "tools/gen.sh"]);
    const prepared = join(await testdir(), "prepared");
    await prepareWorkspace({ source: standIn!.source, commit: standIn!.commit, dir: prepared });
    expect(await readFile(join(prepared, "src/Main.java"), "utf8")).toBe("class Main {}\n");
    expect(await readFile(join(prepared, "test/resources/wal 0001"), "utf8")).toBe("");
    expect((await stat(join(prepared, "tools/gen.sh"))).mode & 0o111).not.toBe(0);
  });

  it("is undefined when nothing is missing", async () => {
    const repo = await gitdir({ commits: [{ message: "init", files: { "a.txt": "a\n" } }] });
    expect(
      await standInForMissingBlobs({
        source: repo.dir,
        commit: repo.commits[0]!,
        dir: join(await testdir(), "stand-in.git"),
      }),
    ).toBeUndefined();
  });
});
