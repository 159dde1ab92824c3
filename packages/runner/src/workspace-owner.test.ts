import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { chown, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  createAttemptSandbox,
  createSandbox,
  type OwnedFolder,
  type Sandbox,
} from "@distdebug/sandbox";
import { gitdir, testdir } from "@distdebug/test-utils";
import { prepareWorkspace } from "@distdebug/workspace";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

// The copy creates every entry as the sandbox's user, and the sandbox takes its word for it
// instead of walking the tree: the agent can write anywhere in its copy, never in the base.
const isRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };
/** Writes into a nested folder, a file in place, a new folder, and the copy's git folder. */
const WRITES = [
  "echo more >> src/deep/er/Main.java",
  "echo new > src/deep/er/New.java",
  "mkdir -p made/here && echo x > made/here/file",
  "git add -A && git -c user.name=a -c user.email=a@a commit -q -m change",
  "test $(git rev-list --count HEAD) = 2",
  "id -u",
].join(" && ");

let source: { dir: string; commit: string };
beforeAll(async () => {
  const repo = await gitdir({
    commits: [
      {
        message: "buggy",
        files: {
          "README.md": "readme\n",
          "src/deep/er/Main.java": "class Main {}\n",
          "scripts/run.sh": { content: "#!/bin/sh\necho run\n", mode: 0o755 },
          "scripts/readme-link": { symlink: "../README.md" },
        },
      },
    ],
  });
  source = { dir: repo.dir, commit: repo.commits[0] as string };
});

const open: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});

/** Every entry below `dir` (itself included) whose owner is not `owner`, as `path uid:gid`. */
function notOwnedBy(dir: string, owner: { uid: number; gid: number }): string[] {
  const wrong: string[] = [];
  const visit = (path: string, rel: string) => {
    const stats = lstatSync(path);
    if (stats.uid !== owner.uid || stats.gid !== owner.gid)
      wrong.push(`${rel || "."} ${stats.uid}:${stats.gid}`);
    if (stats.isDirectory())
      for (const name of readdirSync(path)) visit(join(path, name), rel ? `${rel}/${name}` : name);
  };
  visit(dir, "");
  return wrong;
}

/** A copy of the source's buggy tree from a cached base, created as `owner`. */
async function ownedCopy(dir: string, cacheDir: string, owner: { uid: number; gid: number }) {
  const result = await prepareWorkspace({
    source: source.dir,
    commit: source.commit,
    dir,
    cacheDir,
    owner,
  });
  if (!result.baseDir || !result.owner) throw new Error("expected a cached base and an owner");
  return { result, owned: { dir: result.dir, owner: result.owner } satisfies OwnedFolder };
}

describe.runIf(isRoot)("a workspace copy created as the sandbox's user (root, bubblewrap)", () => {
  it("is the agent's to write everywhere without the sandbox's walk, and the base stays root's and unchanged", async () => {
    const base = await testdir();
    const { result, owned } = await ownedCopy(join(base, "ws"), join(base, "cache"), NOBODY);
    const baseDir = result.baseDir as string;
    // Every entry of the copy, .git included, was created as 65534; the base is root's.
    expect(notOwnedBy(result.dir, NOBODY)).toEqual([]);
    expect(notOwnedBy(baseDir, { uid: 0, gid: 0 })).toEqual([]);
    const baseMain = readFileSync(join(baseDir, "src/deep/er/Main.java"), "utf8");
    // A file the copy did not make: the walk would hand it over; with the statement it stays root's.
    await writeFile(join(result.dir, "planted-by-root"), "x");
    const sandbox = await createSandbox({
      workspace: result.dir,
      ownedWorkspace: owned,
      policy: { user: NOBODY, limits: { timeoutMs: 60_000 } },
    });
    open.push(sandbox);
    const wrote = await sandbox.exec(WRITES);
    expect([wrote.exitCode, wrote.stderr, wrote.stdout.trim()]).toEqual([0, "", "65534"]);
    expect(lstatSync(join(result.dir, "planted-by-root")).uid).toBe(0);
    expect(readFileSync(join(result.dir, "src/deep/er/Main.java"), "utf8")).toBe(
      `${baseMain}more\n`,
    );
    // The base: same contents, still root's, nothing added.
    expect(readFileSync(join(baseDir, "src/deep/er/Main.java"), "utf8")).toBe(baseMain);
    expect(notOwnedBy(baseDir, { uid: 0, gid: 0 })).toEqual([]);
    expect(readdirSync(baseDir).sort()).toEqual([".git", "README.md", "scripts", "src"]);
    // A second copy of the same base carries none of the first agent's writes.
    const again = await ownedCopy(join(base, "ws2"), join(base, "cache"), NOBODY);
    expect(again.result.cacheHit).toBe(true);
    expect(readFileSync(join(again.result.dir, "src/deep/er/Main.java"), "utf8")).toBe(baseMain);
  }, 120_000);

  it("a statement about another folder or another user is not taken: the sandbox walks", async () => {
    const base = await testdir();
    const { result } = await ownedCopy(join(base, "ws"), join(base, "cache"), NOBODY);
    await writeFile(join(result.dir, "planted-by-root"), "x");
    for (const ownedWorkspace of [
      { dir: join(base, "elsewhere"), owner: NOBODY },
      { dir: result.dir, owner: { uid: 65533, gid: 65533 } },
    ]) {
      const sandbox = await createSandbox({
        workspace: result.dir,
        ownedWorkspace,
        policy: { user: NOBODY, limits: { timeoutMs: 60_000 } },
      });
      await sandbox.dispose();
      expect(lstatSync(join(result.dir, "planted-by-root")).uid).toBe(65534);
      await chown(join(result.dir, "planted-by-root"), 0, 0);
    }
  }, 120_000);

  it("an attempt's copy is created as its leased uid, and its sandbox writes there", async () => {
    const base = await testdir();
    const attempt = await createAttemptSandbox({
      dir: join(base, "work"),
      policy: { limits: { timeoutMs: 60_000 } },
    });
    try {
      const owner = attempt.workspaceOwner;
      expect(owner).toEqual(attempt.policy.user);
      if (!owner) throw new Error("expected a leased uid as root");
      const { owned } = await ownedCopy(attempt.workspaceDir, join(base, "cache"), owner);
      expect(notOwnedBy(attempt.workspaceDir, owner)).toEqual([]);
      await mkdir(attempt.taskDir);
      const sandbox = await attempt.open({ ownedWorkspace: owned });
      const wrote = await sandbox.exec(WRITES);
      expect([wrote.exitCode, wrote.stderr, wrote.stdout.trim()]).toEqual([
        0,
        "",
        String(owner.uid),
      ]);
    } finally {
      await attempt.release();
    }
  }, 120_000);
});
