import { execFileSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gitdir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createDirectoryScorer, type TreeFiles } from "./directory-scorer.js";
import { entryCheck, ROW_COUNT_RULE, RowCounts } from "./internal/row-counts.js";
import { knownTreeSize, treeSizeKeys } from "./internal/tree-sizes.js";

const FILES = {
  "src/A.java": "class A {\n\n  int x;\n   \n}\n",
  "src/B.java": "b\r\n\r\nc\r\n",
  "src/C.java": "c\n".repeat(40),
  "tool.py": "def f():\n\n    return 1\n",
  "README.md": "not a source file\n\nat all\n",
};
const diagnosis = {
  format: "distdebug.diagnosis/1",
  incidentId: "tree-1",
  blocks: [{ path: "src/A.java", startLine: 3, endLine: 3 }],
};
const gold = { incidentId: "tree-1", blocks: [{ path: "src/A.java", startLine: 3, endLine: 3 }] };

function git(dir: string, ...args: string[]): Buffer {
  return execFileSync("git", ["-C", dir, ...args]);
}

/**
 * A real repository's HEAD read with git's own tools, as a scorer's tree: content keys are the
 * blob ids, the tree id is git's. `calls` counts the listings and key lookups (a walk each).
 */
async function headTree() {
  const repo = await gitdir({ commits: [{ files: FILES, message: "first" }] });
  const entries = git(repo.dir, "ls-tree", "-r", "HEAD")
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const [meta = "", path = ""] = line.split("\t");
      return { path, oid: meta.split(" ")[2] as string };
    });
  const calls = { list: 0, keys: 0 };
  const id = git(repo.dir, "rev-parse", "HEAD^{tree}").toString().trim();
  const readFile = async (path: string) =>
    entries.some((entry) => entry.path === path)
      ? git(repo.dir, "show", `HEAD:${path}`)
      : undefined;
  const files: TreeFiles = {
    readFile,
    async listFiles() {
      calls.list += 1;
      return entries.map((entry) => entry.path);
    },
    contents: {
      async tree() {
        return { id, rules: "test-1" };
      },
      async keys() {
        calls.keys += 1;
        return new Map(entries.map((entry) => [entry.path, entry.oid]));
      },
      async read(keys) {
        return new Map(keys.map((key) => [key, git(repo.dir, "cat-file", "blob", key)]));
      },
    },
  };
  /** The uncached rule: every listed file read and counted, no content keys, no tree id. */
  const byFile: TreeFiles = { readFile, listFiles: async () => entries.map((entry) => entry.path) };
  return { files, byFile, calls, id };
}

async function sizeOf(
  root: TreeFiles,
  options: { countCacheDir?: string; languages?: Record<string, "text"> } = {},
) {
  const scorer = createDirectoryScorer({ root, ...options });
  try {
    const { repositoryRows, repositoryFiles } = (await scorer.score({ diagnosis, gold })).counts;
    return { rows: repositoryRows, files: repositoryFiles };
  } finally {
    await scorer.close();
  }
}

describe("the repository size R kept by tree id", () => {
  it("equals R counted file by file, and a tree counted once is neither listed nor counted again", async () => {
    const { files, byFile, calls, id } = await headTree();
    const countCacheDir = await testdir();
    const truth = await sizeOf(byFile);
    expect(truth).toEqual({ rows: 3 + 2 + 40 + 2, files: 4 });
    expect(await sizeOf(files, { countCacheDir })).toEqual(truth);
    expect(calls).toEqual({ list: 1, keys: 1 });
    // Kept on disk under the tree's id, beside the blobs' counts.
    const keys = treeSizeKeys({ id, rules: "test-1" }, undefined);
    expect(await knownTreeSize(new RowCounts(countCacheDir, new Map()), keys)).toEqual(truth);
    // A later scorer of the same tree: R from the tree's entry, no listing, no count.
    expect(await sizeOf(files, { countCacheDir })).toEqual(truth);
    expect(calls).toEqual({ list: 1, keys: 1 });
  }, 120_000); // Starts the scoring worker (grammars) and git processes: slow on a loaded machine.

  it("recounts a tree whose kept R was edited (never trusts an entry that fails its check)", async () => {
    const { files, byFile, calls, id } = await headTree();
    const truth = await sizeOf(byFile);
    // Languages of their own: keys this process has never counted (nothing in memory).
    const languages = { ".tampered": "text" as const };
    const keys = treeSizeKeys({ id, rules: "test-1" }, languages);
    expect(keys.rows).not.toBe(treeSizeKeys({ id, rules: "test-1" }, undefined).rows);
    // Entries as the cache writes them, then edited: the counts changed, the checks kept.
    const countCacheDir = await testdir();
    await new RowCounts(countCacheDir, new Map()).keep(
      new Map([
        [keys.rows, truth.rows],
        [keys.files, truth.files],
      ]),
    );
    const shardDir = join(countCacheDir, ROW_COUNT_RULE);
    for (const name of await readdir(shardDir)) {
      const path = join(shardDir, name);
      const text = await readFile(path, "utf8");
      await writeFile(
        path,
        text
          .replace(`${keys.rows} ${truth.rows} `, `${keys.rows} 7 `)
          .replace(`${keys.files} ${truth.files} `, `${keys.files} 1 `),
      );
    }
    const edited = (
      await Promise.all(
        (await readdir(shardDir)).map((name) => readFile(join(shardDir, name), "utf8")),
      )
    ).join("");
    expect(edited).toContain(`${keys.rows} 7 ${entryCheck(keys.rows, truth.rows)}`);
    const fresh = new RowCounts(countCacheDir, new Map());
    expect(await knownTreeSize(fresh, keys)).toBeUndefined();
    expect(fresh.rejected).toBe(2);
    // The scorer recounts the tree (a listing and a count) and R is the true one.
    expect(await sizeOf(files, { countCacheDir, languages })).toEqual(truth);
    expect(calls).toEqual({ list: 1, keys: 1 });
  }, 120_000); // As above.
});
