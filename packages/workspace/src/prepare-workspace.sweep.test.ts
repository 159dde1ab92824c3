import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git } from "./testing/fixture-repo.js";

const FOLDERS = ["api", "core", "net", "raft", "store", "util"];
const FILES_PER_FOLDER = 12;
const FIXES = 24;
/** How many of the pack's last blobs an attacker would name. */
const LAST = 3;

/** A small deterministic generator (the sweep must be the same on every run). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface Fix {
  commit: string;
  parent: string;
  files: string[];
}

let bare: string;
let paths: string[];
const fixes: Fix[] = [];

/**
 * A repository with {@link FIXES} fix commits, each changing one or two of 72 files, cloned
 * bare over the pack protocol (`file://`), as the repository cache clones from a server: the
 * clone's pack is in git's recency order, where the buggy versions of a fix's files come last.
 */
beforeAll(async () => {
  const repo = await testdir();
  const random = generator(26);
  git(repo, "init", "-q", "-b", "main");
  paths = FOLDERS.flatMap((folder) =>
    Array.from({ length: FILES_PER_FOLDER }, (_, i) => `${folder}/File${i}.java`),
  ).sort();
  const contents = new Map(paths.map((path) => [path, `// ${path}\nclass X {\n  int v = 0;\n}\n`]));
  const write = (path: string) => writeFileSync(join(repo, path), contents.get(path) ?? "");
  for (const folder of FOLDERS) mkdirSync(join(repo, folder));
  for (const path of paths) write(path);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "import");
  for (let k = 0; k < FIXES; k++) {
    const count = random() < 0.5 ? 1 : 2;
    const files = new Set<string>();
    while (files.size < count) files.add(paths[Math.floor(random() * paths.length)] ?? "");
    for (const path of files) {
      contents.set(path, `${contents.get(path)}// fix ${k}: check the epoch first\n`);
      write(path);
    }
    git(repo, "commit", "-q", "-am", `fix ${k}`);
    fixes.push({
      commit: git(repo, "rev-parse", "HEAD"),
      parent: git(repo, "rev-parse", "HEAD^"),
      files: [...files],
    });
  }
  bare = join(await testdir(), "clone.git");
  execFileSync("git", ["clone", "--bare", "--quiet", `file://${repo}`, bare], {
    stdio: "ignore",
  });
}, 120_000);

/** The blobs of a workspace's pack in stored order (`git verify-pack -v`), as paths. */
function packedBlobPaths(dir: string): string[] {
  const packDir = join(dir, ".git/objects/pack");
  const pack = readdirSync(packDir).find((name) => name.endsWith(".pack")) ?? "";
  const pathByBlob = new Map<string, string>();
  for (const line of git(dir, "ls-tree", "-r", "HEAD").split("\n")) {
    const match = /^\d+ blob ([0-9a-f]{40})\t(.+)$/.exec(line);
    if (match?.[1] && match[2] && !pathByBlob.has(match[1])) pathByBlob.set(match[1], match[2]);
  }
  return git(dir, "verify-pack", "-v", join(packDir, pack))
    .split("\n")
    .map((line) => /^([0-9a-f]{40}) blob /.exec(line)?.[1])
    .filter((oid) => oid !== undefined)
    .map((oid) => pathByBlob.get(oid) ?? oid);
}

describe("prepareWorkspace: the pack order over a history of fixes (the sweep)", () => {
  it("names a fixed file among its last blobs no more often than the fixed files' share of the tree", {
    // 24 workspaces prepared with the git binary, one after another.
    timeout: 180_000,
  }, async () => {
    const base = await testdir();
    let hits = 0;
    let expected = 0;
    const unsorted: number[] = [];
    for (const [k, fix] of fixes.entries()) {
      const dir = join(base, `ws-${k}`);
      await prepareWorkspace({ source: bare, commit: fix.parent, dir, cacheDir: false });
      const blobs = packedBlobPaths(dir);
      if (blobs.join("\n") !== paths.join("\n")) unsorted.push(k);
      if (blobs.slice(-LAST).some((path) => fix.files.includes(path))) hits++;
      // Chance that LAST files drawn at random include one of the fix's files.
      let miss = 1;
      for (let i = 0; i < LAST; i++)
        miss *= (paths.length - fix.files.length - i) / (paths.length - i);
      expected += 1 - miss;
    }
    // Deterministic (fixed seed): the path-sorted pack hits only where a fix touches the
    // path-last files. Before the fix it was every fix (24 of 24).
    expect(
      hits,
      `fixes whose pack ends with a fixed file (chance: ${expected.toFixed(1)})`,
    ).toBeLessThanOrEqual(Math.ceil(expected) + 2);
    expect(unsorted, "workspaces whose blobs are not packed in path order").toEqual([]);
  });
});
