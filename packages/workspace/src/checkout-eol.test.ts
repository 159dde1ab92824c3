import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import type { GitEngine } from "./engine.js";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git } from "./testing/fixture-repo.js";

// Blobs as they sit in the repository (the first commit has no attributes, so nothing is
// normalized on the way in), then .gitattributes files that make a checkout convert some.
const BLOBS: Record<string, string | Buffer> = {
  "bin/start.cmd": "@echo off\nset X=1\nrun.exe\n",
  "bin/start.bat": "@echo off\ncall start.cmd\n",
  "bin/mixed.ps1": "Write-Host a\r\nWrite-Host b\n",
  "bin/plain.ps1": "Write-Host a\nWrite-Host b\n",
  "bin/data.bat": Buffer.from([0x41, 0x0a, 0x00, 0x42, 0x0a]),
  "docs/readme.txt": "line one\nline two\n",
  "docs/win/notes.txt": "kept\nas crlf\n",
  "docs/win/raw.txt": "no\nconversion\n",
  "img/logo.png": Buffer.from([0x89, 0x50, 0x0a, 0x00, 0x0a]),
  "scripts/build.sh": "#!/bin/sh\necho ok\n",
  "src/Main.java": "class Main {\n}\n",
};
const ATTRIBUTES: Record<string, string> = {
  ".gitattributes":
    "# line endings\n* text=auto\n*.cmd text eol=crlf\n*.bat eol=crlf\n*.ps1 text=auto eol=crlf\n*.png binary\nscripts/** eol=lf\n",
  "docs/win/.gitattributes": "*.txt eol=crlf\nraw.txt -text\n",
};

let repo: string;
let commit: string;

function write(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

beforeAll(async () => {
  repo = await testdir();
  git(repo, "init", "-q", "-b", "main");
  git(repo, "config", "core.autocrlf", "false");
  write(repo, BLOBS);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "files");
  write(repo, ATTRIBUTES);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "attributes");
  commit = git(repo, "rev-parse", "HEAD");
});

/** What `git clone` checks out, with git's defaults on Linux and no user or system config. */
async function checkout(): Promise<string> {
  const dir = join(await testdir(), "checkout");
  execFileSync("git", ["clone", "-q", repo, dir], {
    env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" },
  });
  return dir;
}

describe("prepared workspaces apply .gitattributes line endings like a checkout", () => {
  it.each<GitEngine>(["git", "isomorphic-git"])("with the %s engine", async (engine) => {
    const expected = await checkout();
    const dir = join(await testdir(), "ws");
    await prepareWorkspace({ source: repo, commit, dir, engine });
    for (const path of [...Object.keys(BLOBS), ...Object.keys(ATTRIBUTES)]) {
      expect({ path, bytes: readFileSync(join(dir, path)).toString("hex") }).toEqual({
        path,
        bytes: readFileSync(join(expected, path)).toString("hex"),
      });
    }
    // The conversion really happened (and the blob is untouched in the workspace's commit).
    expect(readFileSync(join(dir, "bin/start.cmd"), "utf8")).toBe(
      "@echo off\r\nset X=1\r\nrun.exe\r\n",
    );
    expect(git(dir, "cat-file", "-p", "HEAD:bin/start.cmd")).toBe("@echo off\nset X=1\nrun.exe");
    expect(git(dir, "status", "--porcelain")).toBe("");
  });
});
