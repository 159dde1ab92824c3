import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { hasNeutralTimes, stampedEntries } from "./internal/neutral-times.js";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git } from "./testing/fixture-repo.js";
import { snapshotTree } from "./testing/tree-snapshot.js";

/**
 * The sha256 of the whole prepared workspace (`.git` included: pack, index, refs) of the
 * repository below. Speed work must not change a byte; change this only with a deliberate
 * change of the workspace format. Last changed on purpose for workspace neutrality (issue 26):
 * the pack holds its objects in the neutral order (commit, trees, blobs by path) instead of
 * the source's, and a scrubbed key reads `issue` instead of one `x` per byte.
 */
const PINNED_WORKSPACE = "57a8d8bd2e65693aafbf2e6c6e7474372477d6e2de38e6695f5d48b9a2703d35";

let repo: string;
let commit: string;

function write(path: string, content: string | Buffer, mode?: number): void {
  const target = join(repo, path);
  mkdirSync(join(target, ".."), { recursive: true });
  writeFileSync(target, content);
  if (mode !== undefined) chmodSync(target, mode);
}

/**
 * A repository whose commit has more files than one read batch, line-ending attributes
 * (`eol=crlf`, `text=auto`, `-text`), an issue key to scrub, symlinks, an executable, empty
 * and binary files, and files sharing one blob. Dates and identities are fixed, so its ids are.
 */
beforeAll(async () => {
  repo = await testdir();
  git(repo, "init", "-q", "-b", "main");
  git(repo, "config", "core.autocrlf", "false");
  write(".gitattributes", "*.cmd text eol=crlf\n*.txt text=auto eol=crlf\n*.dat -text\n");
  write("bin/run.cmd", "@echo off\nset X=1\nrun.exe\n");
  write("bin/start.sh", "#!/bin/sh\nexec java -jar server.jar\n", 0o755);
  write("notes.txt", "HBASE-1234 was here\nsecond line\n");
  write("mixed.txt", "already\r\ncrlf\n");
  write("raw.dat", "a\nb\n");
  write("empty.txt", "");
  write("docs/binary.bin", Buffer.from([0, 1, 2, 255, 10, 0, 13, 10]));
  write("docs/with space/naïve café.md", "Unicode name, see HBASE-1234\n");
  for (let i = 0; i < 600; i++)
    write(
      `gen/d${i % 23}/F${i}.java`,
      `class F${i} {\n  int v = ${i % 300};\n}\n`.repeat(1 + (i % 7)),
    );
  symlinkSync("bin/start.sh", join(repo, "start-link"));
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "HBASE-1234 import");
  commit = git(repo, "rev-parse", "HEAD");
});

function digest(dir: string): string {
  return createHash("sha256")
    .update(JSON.stringify(snapshotTree(dir)))
    .digest("hex");
}

describe("prepareWorkspace: the workspace bytes", () => {
  it("are the pinned bytes on the git and the isomorphic-git paths, with and without the cache", async () => {
    const base = await testdir();
    const digests: string[] = [];
    for (const engine of ["git", "isomorphic-git"] as const) {
      for (const cacheDir of [false, join(base, `cache-${engine}`)] as const) {
        const dir = join(base, `${engine}-${cacheDir === false ? "cold" : "cached"}`);
        const result = await prepareWorkspace({
          source: repo,
          commit,
          dir,
          needles: ["HBASE-1234"],
          cacheDir,
          engine,
        });
        expect(result.replacements).toHaveLength(2);
        // Before anything reads the copy (reading moves atimes).
        const notNeutral = (await stampedEntries(dir)).filter(
          (entry) => !hasNeutralTimes(entry.stats),
        );
        expect(notNeutral.map((entry) => entry.rel)).toEqual([]);
        digests.push(digest(dir));
      }
    }
    expect(digests).toEqual(digests.map(() => PINNED_WORKSPACE));
  });
});
