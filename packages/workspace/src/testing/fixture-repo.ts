import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";

/** The source repository of the tests, built with real git. */
export interface SourceFixture {
  dir: string;
  buggy: string;
  fix: string;
  later: string;
  /** Id of the submodule commit recorded at `vendor/lib`. */
  submoduleCommit: string;
  issueKey: string;
  /** A line the fix adds. */
  fixLine: string;
}

let clock = 1_700_000_000;

/** Runs git in `cwd` with a fixed identity and an advancing date; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  clock += 60;
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Real Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Real Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
      GIT_AUTHOR_DATE: `${clock} +0000`,
      GIT_COMMITTER_DATE: `${clock} +0000`,
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: cwd,
    },
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

function write(dir: string, path: string, content: string | Buffer, mode?: number): void {
  const target = join(dir, path);
  mkdirSync(join(target, ".."), { recursive: true });
  writeFileSync(target, content);
  if (mode !== undefined) chmodSync(target, mode);
}

/**
 * A repository with history past the buggy commit: the fix (mentioning the issue key and
 * adding a distinctive line), a later commit mentioning the key, lightweight and annotated
 * tags, branches, a remote, a stash, packed refs and a pack with deltas plus loose objects.
 * The buggy tree has symlinks, executables, empty files, spaces and non-ASCII names, a
 * submodule entry and a file mentioning the issue key. `extraFiles` adds generated files.
 */
export async function sourceFixture(options: { extraFiles?: number } = {}): Promise<SourceFixture> {
  const dir = await testdir();
  const issueKey = "ZOOKEEPER-2845";
  git(dir, "init", "-q", "-b", "main");
  git(dir, "remote", "add", "origin", "https://example.com/apache/zookeeper.git");
  const server = [
    "package org.example;",
    "",
    "public class Server {",
    "    void loadDataBase() {",
    "        long zxid = snapLog.restore(dataTree, sessions);",
    "        return zxid;",
    "    }",
    "}",
    "",
  ];
  write(dir, "src/main/java/org/example/Server.java", server.join("\n"));
  write(dir, "README.md", "# Example\n\nSee the docs.\n");
  write(dir, "bin/start.sh", "#!/bin/sh\nexec java -jar server.jar\n", 0o755);
  write(dir, "empty.txt", "");
  write(dir, "docs/with space/naïve café.md", "Unicode name\n");
  write(dir, "docs/binary.bin", Buffer.from([0, 1, 2, 255, 10, 0, 13, 10]));
  symlinkSync("bin/start.sh", join(dir, "start-link"));
  symlinkSync("../README.md", join(dir, "docs/readme-link"));
  for (let i = 0; i < (options.extraFiles ?? 0); i++)
    write(dir, `gen/d${i % 20}/F${i}.java`, `class F${i} {\n  int v = ${i};\n}\n`.repeat(20));
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial import");
  git(dir, "tag", "v1.0");

  // A commit recorded as a submodule entry (a gitlink); no .gitmodules needed for the tree.
  const submoduleCommit = git(dir, "rev-parse", "HEAD");
  git(dir, "update-index", "--add", "--cacheinfo", `160000,${submoduleCommit},vendor/lib`);
  mkdirSync(join(dir, "vendor/lib"), { recursive: true });
  write(dir, "CHANGES.txt", `Release notes\n\nOlder: ${issueKey} was reported here.\n`);
  git(dir, "add", "CHANGES.txt");
  git(dir, "commit", "-q", "-m", "add vendor lib and release notes");
  const buggy = git(dir, "rev-parse", "HEAD");
  git(dir, "branch", "release-3.5");

  const fixLine =
    'if (zxid < lastProcessedZxid) throw new IllegalStateException("snapshot older than log");';
  const fixed = [...server];
  fixed.splice(5, 0, `        ${fixLine}`);
  write(dir, "src/main/java/org/example/Server.java", fixed.join("\n"));
  git(dir, "add", "src");
  git(dir, "commit", "-q", "-m", `${issueKey}: refuse a snapshot older than the log`);
  const fix = git(dir, "rev-parse", "HEAD");
  git(dir, "tag", "-a", "v1.1", "-m", `release with ${issueKey}`);
  write(dir, "CHANGES.txt", `Release notes\n\n${issueKey} fixed in ${fix.slice(0, 10)}\n`);
  git(dir, "commit", "-q", "-am", `notes for ${issueKey}`);
  const later = git(dir, "rev-parse", "HEAD");
  git(dir, "branch", "feature/after-fix");
  git(dir, "gc", "-q");
  // A loose object and a stash after the pack.
  write(dir, "README.md", "# Example\n\nwork in progress\n");
  git(dir, "stash", "-q");
  return { dir, buggy, fix, later, submoduleCommit, issueKey, fixLine };
}
