import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { listFilesBelow } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { prepareWorkspace } from "./prepare-workspace.js";
import { openRevisionFiles } from "./revision-files.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";

let source: SourceFixture;
beforeAll(async () => {
  source = await sourceFixture();
  // A checkout converts these to CRLF: the files read in place must say so too.
  git(source.dir, "checkout", "-q", source.buggy);
  await writeFile(join(source.dir, ".gitattributes"), "*.crlf text eol=crlf\n");
  await writeFile(join(source.dir, "notes.crlf"), `one ${source.issueKey}\ntwo\n`);
  git(source.dir, "add", ".gitattributes", "notes.crlf");
  git(source.dir, "commit", "-q", "-m", "line endings");
});

describe("openRevisionFiles", () => {
  it("reads every file as the prepared workspace holds it, without preparing one", async () => {
    const commit = git(source.dir, "rev-parse", "HEAD");
    const needles = [source.issueKey, source.fix];
    const workspace = join(await testdir(), "ws");
    await prepareWorkspace({
      source: source.dir,
      commit,
      dir: workspace,
      needles,
      cacheDir: false,
    });
    for (const engine of ["git", "isomorphic-git"] as const) {
      const files = await openRevisionFiles({ source: source.dir, commit, needles, engine });
      try {
        const listed = await listFilesBelow(workspace, { skip: (path) => path === ".git" });
        expect(await files.listFiles()).toEqual([...listed].sort());
        for (const path of listed)
          expect(await files.readFile(path), `${engine}: ${path}`).toEqual(
            await readFile(join(workspace, path)),
          );
        expect((await files.readFile("notes.crlf"))?.toString("utf8")).toMatch(/\r\ntwo\r\n$/);
        // Symbolic links are followed inside the tree, as a reader of the folder does.
        expect(await files.readFile("start-link")).toEqual(await files.readFile("bin/start.sh"));
        expect(await files.readFile("docs/readme-link")).toEqual(
          await readFile(join(workspace, "README.md")),
        );
        for (const path of ["src", "vendor/lib", "nope.txt", "README.md/x"])
          expect(await files.readFile(path)).toBeUndefined();
      } finally {
        await files.close();
      }
    }
  });

  it("refuses a link that leads outside the tree, naming it", async () => {
    const dir = await testdir();
    git(dir, "init", "-q", "-b", "main");
    await symlink("../../etc/passwd", join(dir, "escape"));
    git(dir, "add", "escape");
    git(dir, "commit", "-q", "-m", "a link out");
    const files = await openRevisionFiles({ source: dir, commit: "HEAD" });
    try {
      await expect(files.readFile("escape")).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining("escape: a link that leads outside the repository"),
      });
      expect(await files.listFiles()).toEqual([]);
    } finally {
      await files.close();
    }
  });
});
