import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { createDirectoryScorer, type DirectoryScorer } from "@distdebug/evaluator";
import { gitdir, testdir } from "@distdebug/test-utils";
import { openRevisionFiles } from "@distdebug/workspace";
import { describe, expect, it } from "vitest";

const NEEDLE = "ZK-1234";
const late = `${"x\n".repeat(4_600)}\u0000\n`;
/** Every case the row rule distinguishes: blank rows of every kind, CRLF, binary, no final newline. */
const FILES = {
  ".gitattributes": "conv/*.java text eol=crlf\nauto/*.java text=auto eol=crlf\n",
  "src/A.java": "class A {\n\n  int x;\n   \n}\n",
  "src/Crlf.java": "a\r\n\r\nb\r\n  \r\n",
  "src/Blank.java": "a\n\f\n\u000b\n\t \n b",
  "src/Bin.java": new Uint8Array([97, 10, 0, 10, 98, 10]),
  "src/LateNul.java": late,
  "src/Utf8.java": "\u00e9\n\u00a0\n\n",
  "src/Bom.java": "\ufeff\n x\n",
  "src/Empty.java": "",
  "src/Needle.java": `// ${NEEDLE} fixed\n\nclass N {}\n`,
  "conv/L.java": "x\ny\n\nz\n",
  "auto/M.java": "p\n\nq\n",
  "auto/N.java": "p\r\n\nq\n",
  "tool.py": "def f():\n\n    return 1\n",
  "README.md": "not a source file\n\nat all\n",
  "link.java": { symlink: "src/A.java" },
};
/** The non-blank rows of the source files above, counted by hand. */
const EXPECTED = { rows: 3 + 2 + 2 + 0 + 4_601 + 2 + 2 + 0 + 2 + 3 + 2 + 2 + 2, files: 13 };

const gold = { incidentId: "rows-1", blocks: [{ path: "src/A.java", startLine: 3, endLine: 3 }] };
const diagnosis = {
  format: "distdebug.diagnosis/1",
  incidentId: "rows-1",
  blocks: [{ path: "src/A.java", startLine: 3, endLine: 3 }],
};

async function repositorySize(scorer: DirectoryScorer) {
  const { repositoryRows, repositoryFiles } = (await scorer.score({ diagnosis, gold })).counts;
  return { rows: repositoryRows, files: repositoryFiles };
}

describe("the repository size R counted by blob (shared, cached on disk)", () => {
  it("is the R of reading and counting every file, revision after revision, cold and warm", async () => {
    const repo = await gitdir({
      commits: [
        { files: FILES, message: "first" },
        {
          files: { "src/A.java": "class A {\n  int y;\n}\n", "src/B.java": "b\n" },
          message: "next",
        },
      ],
    });
    const countCacheDir = join(await testdir(), "row-counts");
    const sizes: { rows: number; files: number }[] = [];
    const walks: number[] = [];
    // Twice over both revisions: the second pass answers R from the tree's kept entry.
    for (const commit of [...repo.commits, ...repo.commits]) {
      const files = await openRevisionFiles({ source: repo.dir, commit, needles: [NEEDLE] });
      let walked = 0;
      const byBlob = createDirectoryScorer({
        root: {
          readFile: files.readFile,
          listFiles: () => {
            walked += 1;
            return files.listFiles();
          },
          contents: {
            tree: files.contents.tree,
            read: files.contents.read,
            keys: () => {
              walked += 1;
              return files.contents.keys();
            },
          },
        },
        countCacheDir,
      });
      // The uncached rule: every listed file read through `readFile` (scrubbed) and counted.
      const byFile = createDirectoryScorer({
        root: { readFile: files.readFile, listFiles: files.listFiles },
      });
      try {
        const counted = await repositorySize(byBlob);
        expect(counted, commit).toEqual(await repositorySize(byFile));
        sizes.push(counted);
        walks.push(walked);
      } finally {
        await byBlob.close();
        await byFile.close();
        await files.close();
      }
    }
    expect(sizes[0]).toEqual(EXPECTED);
    expect(sizes[1]).toEqual({ rows: EXPECTED.rows + 1, files: EXPECTED.files + 1 });
    expect(sizes.slice(2)).toEqual(sizes.slice(0, 2));
    // Counted once per tree (a listing and the keys), then kept by the tree's id.
    expect(walks).toEqual([2, 2, 0, 0]);
    // The counts were kept in the cache folder, one shard file per first hex digit of the key.
    const shards = await readdir(join(countCacheDir, "non-blank-lines-1"));
    expect(shards.length).toBeGreaterThan(0);
    expect(shards.every((name) => /^[0-9a-f]\.rows$/.test(name))).toBe(true);
  }, 120_000); // Starts the scoring worker (grammars) and git processes: slow on a loaded machine.

  it("names each file by its blob, with the checkout's line-ending conversion in the key", async () => {
    const repo = await gitdir({ commits: [{ files: FILES, message: "first" }] });
    const files = await openRevisionFiles({ source: repo.dir, commit: repo.commits[0] as string });
    try {
      const keys = await files.contents.keys();
      expect(keys.get("conv/L.java")).toMatch(/^[0-9a-f]{40}:crlf$/);
      expect(keys.get("auto/M.java")).toMatch(/^[0-9a-f]{40}:crlf-auto$/);
      expect(keys.get("src/A.java")).toMatch(/^[0-9a-f]{40}$/);
      expect(keys.has("link.java")).toBe(false);
      const read = await files.contents.read([keys.get("conv/L.java") as string]);
      expect(read.get(keys.get("conv/L.java") as string)?.toString("latin1")).toBe(
        "x\r\ny\r\n\r\nz\r\n",
      );
      // Not scrubbed: these bytes are only counted, never shown.
      const needle = await files.contents.read([keys.get("src/Needle.java") as string]);
      expect(needle.get(keys.get("src/Needle.java") as string)?.toString()).toContain(NEEDLE);
      await expect(files.contents.read(["../../etc/passwd"])).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    } finally {
      await files.close();
    }
  }, 60_000);
});
