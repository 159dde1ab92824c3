import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { DistDebugError, RepoHistory } from "@distdebug/schema";
import { catalogDatasetDir, exampleDatasetDir, gitdir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { buildIncidentRepository } from "./build-repository.js";
import { loadGold } from "./gold.js";
import { readTree } from "./internal/files.js";
import { replayHistory } from "./internal/replay.js";
import { loadDataset } from "./load-dataset.js";
import type { Dataset } from "./types.js";

const run = promisify(execFile);
const examples = exampleDatasetDir();
const catalog = catalogDatasetDir();

async function git(gitdirPath: string, ...args: string[]): Promise<string> {
  const { stdout } = await run("git", ["--git-dir", gitdirPath, ...args]);
  return stdout;
}

let dataset: Dataset;
beforeAll(async () => {
  dataset = await loadDataset(examples);
});

describe("buildIncidentRepository", () => {
  it("builds every example incident as a real git repository with the recorded ids", async () => {
    const cacheDir = await testdir();
    for (const entry of dataset.incidents) {
      const built = await buildIncidentRepository(entry, { cacheDir });
      const gold = (await loadGold(entry))!;
      expect(built.buggyCommit).toBe(entry.incident.repository.buggyCommit);
      expect(built.built).toBe(true);
      // real git agrees the repository is sound and holds both commits on the branch
      await git(built.gitdir, "fsck", "--strict", "--no-dangling");
      const log = (await git(built.gitdir, "log", "--format=%H", built.branch)).trim().split("\n");
      expect(log).toContain(built.buggyCommit);
      expect(log).toContain(gold.fix.commit);
      expect(log.indexOf(gold.fix.commit)).toBeLessThan(log.indexOf(built.buggyCommit));
      expect(log.length).toBeGreaterThanOrEqual(5);
      // a later tag mentions the issue key, so the workspace must strip history
      const tags = await git(built.gitdir, "for-each-ref", "--format=%(contents)", "refs/tags");
      expect(tags).toContain(gold.needles[0]);
      // the tree at the buggy commit is exactly repo/tree
      const listed = (await git(built.gitdir, "ls-tree", "-r", "--name-only", built.buggyCommit))
        .trim()
        .split("\n");
      expect(listed.sort()).toEqual(
        [...(await readTree(join(entry.dir, "repo/tree"))).keys()].sort(),
      );
    }
  });

  it("computes the same commit ids as isomorphic-git's own commit command", async () => {
    const entry = dataset.incidents.find((item) => item.id === "raftkv-311")!;
    const history = RepoHistory.parse(
      JSON.parse(await readFile(join(entry.dir, "repo/history.json"), "utf8")),
    );
    const replay = replayHistory(history, await readTree(join(entry.dir, "repo/tree")), "h");
    let previous = new Map<string, string>();
    const repo = await gitdir({
      commits: replay.commits.map((commit, index) => {
        const files: Record<string, string | null> = Object.fromEntries(commit.files);
        for (const path of previous.keys()) if (!commit.files.has(path)) files[path] = null;
        previous = new Map(commit.files);
        const spec = history.commits[index]!;
        return {
          files,
          message: spec.message,
          author: spec.author,
          timestamp: Date.parse(spec.date) / 1000,
        };
      }),
    });
    expect(repo.commits).toEqual(replay.commits.map((commit) => commit.oid));
  });

  it("reuses the cache and survives two concurrent builds of the same incident", async () => {
    const cacheDir = await testdir();
    const entry = dataset.incidents[0]!;
    const [first, second] = await Promise.all([
      buildIncidentRepository(entry, { cacheDir }),
      buildIncidentRepository(entry, { cacheDir }),
    ]);
    expect(first.gitdir).toBe(second.gitdir);
    expect([first.built, second.built].filter(Boolean).length).toBeGreaterThanOrEqual(1);
    const again = await buildIncidentRepository(entry, { cacheDir });
    expect(again.built).toBe(false);
    expect(await readdir(join(cacheDir, "repos"))).toEqual([first.gitdir.split("/").pop()]);
    await git(first.gitdir, "fsck", "--strict");
  });

  it("refuses a remote repository with a clear error", async () => {
    const remote = (await loadDataset(catalog)).incidents.find(
      (entry) => entry.id === "zookeeper-2845",
    )!;
    const error = await buildIncidentRepository(remote, { cacheDir: await testdir() }).catch(
      (caught: unknown) => caught,
    );
    expect(DistDebugError.isInstance(error)).toBe(true);
    expect((error as DistDebugError).code).toBe("INVALID_ARGUMENT");
    expect((error as Error).message).toMatch(
      /zookeeper-2845: the repository is remote .*needs network/,
    );
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      buildIncidentRepository(dataset.incidents[1]!, {
        cacheDir: await testdir(),
        signal: controller.signal,
      }),
    ).rejects.toThrow();
  });
});
