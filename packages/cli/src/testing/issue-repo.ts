import { execFileSync } from "node:child_process";
import { type FixtureRepo, gitdir } from "@distdebug/test-utils";

/**
 * A small repository whose history leaks its fix: issue key `ISSUE-7` in a comment and in
 * commit messages, a `fix` branch adding `fixTheRaceInSessionExpiry`, a tag, a remote, an
 * executable file. Commits: start (the buggy revision), fix, notes.
 */
export function issueRepo(): Promise<FixtureRepo> {
  return gitdir({
    remote: "https://example.com/x.git",
    commits: [
      {
        files: {
          "src/a.go": "package a\n// see ISSUE-7 for details\n",
          "run.sh": { content: "#!/bin/sh\n", mode: 0o755 },
        },
        message: "start",
        tags: ["v1"],
      },
      {
        files: {
          "src/a.go":
            "package a\n// see ISSUE-7 for details\nfunc fixTheRaceInSessionExpiry() {}\n",
        },
        message: "ISSUE-7 fix",
        branch: "fix",
      },
      { files: { "NOTES.md": "ISSUE-7 done\n" }, message: "notes" },
    ],
  });
}

/** Runs the git binary in `cwd` and returns its trimmed output. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
