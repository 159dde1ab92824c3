import { execFile } from "node:child_process";
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { listFilesBelow } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { prepareWorkspace } from "./prepare-workspace.js";
import { openRevisionFiles } from "./revision-files.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";

const execFileAsync = promisify(execFile);
let source: SourceFixture;
beforeAll(async () => {
  source = await sourceFixture();
  // A checkout converts these to CRLF: the files read in place must say so too.
  git(source.dir, "checkout", "-q", source.buggy);
  await writeFile(join(source.dir, ".gitattributes"), "*.crlf text eol=crlf\n");
  await writeFile(join(source.dir, "notes.crlf"), `one ${source.issueKey}\ntwo\n`);
  // A folder's own rules, over the root's.
  await writeFile(join(source.dir, "docs/.gitattributes"), "*.txt text eol=crlf\n");
  await writeFile(join(source.dir, "docs/notes.txt"), "three\nfour\n");
  git(source.dir, "add", ".gitattributes", "notes.crlf", "docs/.gitattributes", "docs/notes.txt");
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
    const listed = await listFilesBelow(workspace, { skip: (path) => path === ".git" });
    for (const engine of ["git", "isomorphic-git"] as const) {
      // Before anything walks the tree, each read looks its path up tree by tree.
      const unwalked = await openRevisionFiles({ source: source.dir, commit, needles, engine });
      try {
        for (const path of listed)
          expect(await unwalked.readFile(path), `${engine} unwalked: ${path}`).toEqual(
            await readFile(join(workspace, path)),
          );
        expect((await unwalked.readFile("docs/notes.txt"))?.toString()).toBe("three\r\nfour\r\n");
        expect(await unwalked.readFile("start-link")).toEqual(
          await unwalked.readFile("bin/start.sh"),
        );
        for (const path of [
          "src",
          "vendor/lib",
          "nope.txt",
          "README.md/x",
          "src/../README.md",
          ".git/config",
          "/README.md",
          "",
        ])
          expect(await unwalked.readFile(path), path).toBeUndefined();
        expect(await unwalked.contents.tree()).toEqual({
          id: git(source.dir, "rev-parse", `${commit}^{tree}`),
          rules: expect.any(String),
        });
      } finally {
        await unwalked.close();
      }
      const files = await openRevisionFiles({ source: source.dir, commit, needles, engine });
      try {
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

  it("shares one object reader per repository that, idle, never keeps the process alive", async () => {
    // Two revisions of one repository read and never closed: the process still ends.
    const program = `
      const { openRevisionFiles } = await import(${JSON.stringify(new URL("./revision-files.ts", import.meta.url).href)});
      const [a, b] = await Promise.all(["HEAD", "HEAD~1"].map((commit) =>
        openRevisionFiles({ source: ${JSON.stringify(source.dir)}, commit, engine: "git" })));
      const sizes = [(await a.listFiles()).length, (await b.readFile("README.md"))?.length];
      await a.close();
      process.stdout.write(JSON.stringify(sizes) + " " + JSON.stringify((await a.readFile("README.md"))?.length));
      // A reader of its own, closed once idle: the close is awaited to its end.
      const { openReader } = await import(${JSON.stringify(new URL("./engine.ts", import.meta.url).href)});
      const reader = await openReader(${JSON.stringify(join(source.dir, ".git"))}, "git");
      await reader.readMany([await reader.resolve("HEAD")]);
      await reader.close();
      process.stdout.write(" closed");
    `;
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--conditions=@distdebug/source", "--import", "tsx", "--input-type=module", "-e", program],
      { cwd: fileURLToPath(new URL(".", import.meta.url)), timeout: 60_000 },
    );
    const [sizes, again, closed] = stdout.split(" ");
    expect(closed).toBe("closed");
    expect(JSON.parse(sizes as string)[0]).toBeGreaterThan(0);
    // A read after `close` takes the reader again.
    expect(Number(again)).toBeGreaterThan(0);
  }, 90_000); // A node process with tsx: slow to start on a loaded machine; a hang fails at 60 s.

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
