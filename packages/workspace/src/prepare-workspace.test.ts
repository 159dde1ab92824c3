import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceEvent } from "./events.js";
import { REDACTION_TEXT } from "./needles.js";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";
import { snapshotTree } from "./testing/tree-snapshot.js";

let source: SourceFixture;
beforeAll(async () => {
  source = await sourceFixture();
});

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

describe("prepareWorkspace: nothing of the future", () => {
  it("leaves exactly one neutral commit and its objects, no refs, tags, reflog or remotes", async () => {
    const out = join(await testdir(), "ws");
    const result = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: out,
      needles: [source.issueKey, source.fix],
      cacheDir: join(await testdir(), "cache"),
    });
    expect(result.sourceCommit).toBe(source.buggy);
    expect(
      lines(git(out, "log", "--all", "--format=%H|%an <%ae>|%ad|%cn|%s|%P", "--date=raw")),
    ).toEqual([
      `${result.commit}|DistDebug <workspace@distdebug.invalid>|946684800 +0000|DistDebug|Workspace at the revision under investigation|`,
    ]);
    expect(git(out, "tag")).toBe("");
    expect(git(out, "reflog")).toBe("");
    expect(git(out, "stash", "list")).toBe("");
    expect(git(out, "remote")).toBe("");
    expect(lines(git(out, "for-each-ref", "--format=%(refname)"))).toEqual(["refs/heads/main"]);
    expect(existsSync(join(out, ".git/packed-refs"))).toBe(false);
    expect(existsSync(join(out, ".git/logs"))).toBe(false);
    for (const rev of [
      source.fix,
      source.later,
      source.fix.slice(0, 7),
      "v1.0",
      "v1.1",
      "release-3.5",
    ]) {
      expect(() => git(out, "show", rev)).toThrow();
    }
    // Every stored object belongs to the one commit: the same set as its tree walk.
    const stored = lines(git(out, "cat-file", "--batch-all-objects", "--batch-check")).map(
      (line) => line.split(" ")[0],
    );
    const reachable = lines(git(out, "rev-list", "--objects", "--all")).map(
      (line) => line.split(" ")[0],
    );
    expect(new Set(stored)).toEqual(new Set(reachable));
    expect(stored).toHaveLength(reachable.length);
    expect(
      lines(git(out, "cat-file", "--batch-all-objects", "--batch-check")).filter((l) =>
        l.includes(" commit "),
      ),
    ).toHaveLength(1);
    // The agent's everyday tools work: status and diff are clean, fsck is happy.
    expect(git(out, "status", "--porcelain")).toBe("");
    expect(git(out, "diff")).toBe("");
    git(out, "fsck", "--strict", "--no-dangling");
    // The submodule is an empty folder, reported.
    expect(result.submodules).toEqual(["vendor/lib"]);
    expect(readdirSync(join(out, "vendor/lib"))).toEqual([]);
  });

  it("writes a tree equal to git archive of the buggy commit, bytes and modes", async () => {
    const base = await testdir();
    const out = join(base, "ws");
    await prepareWorkspace({ source: source.dir, commit: source.buggy, dir: out, cacheDir: false });
    const archived = join(base, "archive");
    execFileSync("mkdir", [archived]);
    execFileSync(
      "sh",
      ["-c", `git -c tar.umask=022 archive ${source.buggy} | tar -x -C '${archived}'`],
      { cwd: source.dir },
    );
    const ours = snapshotTree(out, { skip: (rel) => rel === ".git" });
    const theirs = snapshotTree(archived);
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    expect(ours).toEqual(theirs);
    expect(ours["bin/start.sh"]?.mode).toBe("755");
    expect(ours["start-link"]).toEqual({ kind: "symlink", mode: "", data: "bin/start.sh" });
    expect(ours["empty.txt"]).toEqual({ kind: "file", mode: "644", data: "" });
    expect(ours["docs/with space/naïve café.md"]?.kind).toBe("file");
    expect(ours["vendor/lib"]?.kind).toBe("dir");
  });

  it("gives byte-identical workspaces, .git included, on the git and the isomorphic-git paths", async () => {
    const base = await testdir();
    const snapshots = [];
    for (const engine of ["git", "isomorphic-git"] as const) {
      const result = await prepareWorkspace({
        source: source.dir,
        commit: source.buggy.slice(0, 12),
        dir: join(base, engine),
        needles: [source.issueKey],
        cacheDir: false,
        engine,
      });
      expect(result.sourceCommit).toBe(source.buggy);
      snapshots.push(snapshotTree(join(base, engine)));
    }
    expect(Object.keys(snapshots[0] ?? {})).toContain(".git/index");
    expect(snapshots[1]).toEqual(snapshots[0]);
  });

  it("scrubs needles in place without moving a line, and reports each replacement", async () => {
    const out = join(await testdir(), "ws");
    const result = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: out,
      needles: ["zookeeper-2845"],
      cacheDir: false,
    });
    expect(result.replacements).toEqual([
      { file: "CHANGES.txt", line: 3, needle: "zookeeper-2845" },
    ]);
    const original = git(source.dir, "show", `${source.buggy}:CHANGES.txt`);
    const scrubbed = readFileSync(join(out, "CHANGES.txt"), "utf8");
    expect(scrubbed).toBe(`${original.replace(source.issueKey, REDACTION_TEXT)}\n`);
    expect(scrubbed.split("\n")).toHaveLength(original.split("\n").length + 1);
    expect(git(out, "status", "--porcelain")).toBe("");
    // The committed blob is the scrubbed one: git grep finds nothing (exit 1).
    expect(() => git(out, "grep", "-i", "zookeeper-2845", "HEAD")).toThrow();
    expect(git(out, "show", "HEAD:CHANGES.txt")).toContain(
      `Older: ${REDACTION_TEXT} was reported here.`,
    );
  });

  it("refuses an existing folder, an unknown commit and a folder that is not a repository", async () => {
    const base = await testdir({ "taken/file.txt": "x" });
    await expect(
      prepareWorkspace({
        source: source.dir,
        commit: source.buggy,
        dir: join(base, "taken"),
        cacheDir: false,
      }),
    ).rejects.toMatchObject({
      code: "WORKSPACE_ERROR",
      message: expect.stringContaining("already exists"),
    });
    await expect(
      prepareWorkspace({
        source: source.dir,
        commit: "0123456789abcdef0123456789abcdef01234567",
        dir: join(base, "a"),
        cacheDir: false,
      }),
    ).rejects.toMatchObject({ code: "WORKSPACE_ERROR" });
    await expect(
      prepareWorkspace({ source: base, commit: "HEAD", dir: join(base, "b"), cacheDir: false }),
    ).rejects.toMatchObject({
      code: "WORKSPACE_ERROR",
      message: expect.stringContaining("not a git repository"),
    });
    expect(readdirSync(base).sort()).toEqual(["taken"]);
    const replaced = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "taken"),
      cacheDir: false,
      replace: true,
    });
    expect(existsSync(join(replaced.dir, "file.txt"))).toBe(false);
  });
});

describe("prepareWorkspace: base-workspace cache", () => {
  it("copies from the cache on the second call, and the copy is independent of the base", async () => {
    const base = await testdir();
    const cacheDir = join(base, "cache");
    const events: WorkspaceEvent[] = [];
    const first = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "a"),
      cacheDir,
      onEvent: (e) => events.push(e),
    });
    const second = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "b"),
      cacheDir,
      onEvent: (e) => events.push(e),
    });
    expect(first.cacheHit).toBe(false);
    expect(second.cacheHit).toBe(true);
    expect(events.map((e) => e.type)).toContain("cache-miss");
    expect(events.map((e) => e.type)).toContain("cache-hit");
    expect(second.commit).toBe(first.commit);
    expect(second.replacements).toEqual(first.replacements);
    expect(snapshotTree(join(base, "b"))).toEqual(snapshotTree(join(base, "a")));
    expect(git(join(base, "b"), "status", "--porcelain")).toBe("");
    // After the base was read (its atimes moved), a copy still has the same tree, modes,
    // neutral times and symlinks.
    readFileSync(join(second.baseDir ?? "", "README.md"));
    const viaNode = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "n"),
      cacheDir,
    });
    expect(statSync(join(base, "n", "README.md")).atimeMs).toBe(946684800000);
    expect(viaNode.cacheHit).toBe(true);
    expect(snapshotTree(join(base, "n"))).toEqual(snapshotTree(join(base, "a")));
    expect(statSync(join(base, "n", "README.md")).mtimeMs).toBe(946684800000);
    expect(git(join(base, "n"), "status", "--porcelain")).toBe("");
    // The agent edits its copy: the base (what a scorer reads) is untouched.
    writeFileSync(join(base, "b", "README.md"), "edited\n");
    expect(readFileSync(join(second.baseDir ?? "", "README.md"), "utf8")).toBe(
      "# Example\n\nSee the docs.\n",
    );
    // A different needle set is a different base workspace.
    const third = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "c"),
      cacheDir,
      needles: [source.issueKey],
    });
    expect(third.cacheHit).toBe(false);
    expect(third.baseDir).not.toBe(second.baseDir);
  });

  it("detects a damaged or partial entry and rebuilds it", async () => {
    const base = await testdir();
    const cacheDir = join(base, "cache");
    const first = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "a"),
      cacheDir,
    });
    const entry = join(first.baseDir ?? "", "..");
    // Damage a file (its size changes): the digest check catches it during the copy.
    writeFileSync(join(first.baseDir ?? "", "README.md"), "tampered with\n");
    const events: WorkspaceEvent[] = [];
    const second = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "b"),
      cacheDir,
      onEvent: (e) => events.push(e),
    });
    expect(events.filter((e) => e.type === "cache-discard")).toHaveLength(1);
    expect(readFileSync(join(base, "b", "README.md"), "utf8")).toBe("# Example\n\nSee the docs.\n");
    expect(second.baseDir).toBe(first.baseDir);
    // A partial entry (no completion marker) is rebuilt too.
    execFileSync("rm", [join(entry, "complete.json")]);
    events.length = 0;
    const third = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "c"),
      cacheDir,
      onEvent: (e) => events.push(e),
    });
    expect(third.cacheHit).toBe(false);
    expect(events.map((e) => e.type)).toContain("cache-discard");
    expect(snapshotTree(join(base, "c"))).toEqual(snapshotTree(join(base, "a")));
  });
});
