import { execFileSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gitdir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { entryCheck, ROW_COUNT_RULE, RowCounts } from "./internal/row-counts.js";
import { nonBlankLines } from "./internal/text.js";

/** A real repository's blobs: the content keys and a batch reader that counts its reads. */
async function blobs() {
  const repo = await gitdir({
    commits: [
      {
        files: {
          "A.java": "class A {\n\n  int x;\n}\n",
          "B.java": "b\r\n\r\n",
          "C.java": "c\n".repeat(40),
          "D.java": new Uint8Array([0, 10, 97, 10]),
        },
        message: "first",
      },
    ],
  });
  const listing = execFileSync("git", ["-C", repo.dir, "ls-tree", "-r", "HEAD"], {
    encoding: "utf8",
  });
  const keys = listing
    .trim()
    .split("\n")
    .map((line) => line.split(/\s+/)[2] as string);
  const reads: string[] = [];
  const read = async (batch: readonly string[]) => {
    reads.push(...batch);
    return new Map(
      batch.map((key) => [key, execFileSync("git", ["-C", repo.dir, "cat-file", "blob", key])]),
    );
  };
  const truth = new Map([...(await read(keys))].map(([key, bytes]) => [key, nonBlankLines(bytes)]));
  reads.length = 0;
  return { keys, read, reads, truth };
}

/** The shard files of a cache folder. */
async function shards(dir: string): Promise<string[]> {
  const folder = join(dir, ROW_COUNT_RULE);
  return (await readdir(folder))
    .filter((name) => name.endsWith(".rows"))
    .map((name) => join(folder, name));
}

describe("RowCounts: row counts by blob id, kept on disk", () => {
  it("counts each blob once, and a later process reads the counts from the folder", async () => {
    const { keys, read, reads, truth } = await blobs();
    const dir = await testdir();
    const first = await new RowCounts(dir, new Map()).count([...keys, ...keys], read);
    expect(first.rows).toEqual(truth);
    expect(first.stats).toEqual({ cached: 0, counted: keys.length, rejected: 0 });
    expect(reads.sort()).toEqual([...keys].sort());
    reads.length = 0;
    // A new process (no counts in memory): everything comes from the folder, nothing is read.
    const again = await new RowCounts(dir, new Map()).count(keys, read);
    expect(again.rows).toEqual(truth);
    expect(again.stats).toEqual({ cached: keys.length, counted: 0, rejected: 0 });
    expect(reads).toEqual([]);
  }, 30_000);

  it("recounts an entry whose count was edited, and one a truncated or corrupt file lost", async () => {
    const { keys, read, reads, truth } = await blobs();
    const dir = await testdir();
    await new RowCounts(dir, new Map()).count(keys, read);
    const target = keys.find((key) => (truth.get(key) ?? 0) > 0) as string;
    let edited = 0;
    for (const path of await shards(dir)) {
      const text = await readFile(path, "utf8");
      // Each line holds the key, the rows and the check; the edit keeps the old check.
      const edit = text.replace(new RegExp(`^${target} \\d+ `, "m"), `${target} 1000000 `);
      if (edit !== text) {
        edited += 1;
        await writeFile(path, `${edit}not an entry\n`);
      } else await writeFile(path, text.slice(0, -5)); // a truncated last line
    }
    expect(edited).toBe(1);
    reads.length = 0;
    const after = await new RowCounts(dir, new Map()).count(keys, read);
    expect(after.rows).toEqual(truth);
    expect(after.rows.get(target)).not.toBe(1_000_000);
    expect(reads).toContain(target);
    expect(after.stats.rejected).toBeGreaterThanOrEqual(2);
    // The recount was written back: the next process reads every count again without reading.
    reads.length = 0;
    expect((await new RowCounts(dir, new Map()).count(keys, read)).rows).toEqual(truth);
    expect(reads).toEqual([]);
  }, 30_000);

  it("takes a correctly checked entry as it is, and checks every field of a line", () => {
    expect(entryCheck("a".repeat(40), 3)).toMatch(/^[0-9a-f]{16}$/);
    expect(entryCheck("a".repeat(40), 3)).not.toBe(entryCheck("a".repeat(40), 4));
    expect(entryCheck("a".repeat(40), 3)).not.toBe(entryCheck(`${"a".repeat(40)}:crlf`, 3));
  });
});
