import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import {
  blobObject,
  commitObject,
  commitTree,
  entryKind,
  parseTree,
  tagObject,
  tagTarget,
  treeObjects,
} from "./git-objects.js";
import { writeBareRepository } from "./write-repository.js";

const run = promisify(execFile);
const git = async (gitdir: string, ...args: string[]) =>
  (await run("git", ["--git-dir", gitdir, ...args])).stdout;

const person = { name: "Ada", email: "ada@example.org", timestamp: 946684800 };

describe("the git object model", () => {
  it("writes a repository that real git reads back byte for byte", async () => {
    const files = new Map([
      ["a.b", "dot\n"],
      ["a/x.go", "package a\n"],
      ["a-b/y.go", "package b\n"],
      ["README", ""],
    ]);
    const blobs = [...files.values()].map((text) => blobObject(Buffer.from(text)));
    const trees = treeObjects(new Map([...files.keys()].map((path, i) => [path, blobs[i]!.oid])));
    const root = trees[trees.length - 1]!;
    const first = commitObject({
      tree: root.oid,
      parents: [],
      author: person,
      committer: person,
      message: "first\n\n\n",
    });
    const second = commitObject({
      tree: root.oid,
      parents: [first.oid],
      author: person,
      committer: { ...person, timestamp: person.timestamp + 60 },
      message: "second",
    });
    const tag = tagObject({ object: second.oid, name: "v1.0", tagger: person, message: "tag" });
    const gitdir = join(await testdir(), "repo.git");
    await writeBareRepository({
      gitdir,
      defaultBranch: "main",
      objects: [...blobs, ...trees, first, second, tag],
      refs: { "refs/heads/main": second.oid, "refs/tags/v1.0": tag.oid },
    });
    await git(gitdir, "fsck", "--strict", "--no-dangling");
    expect((await git(gitdir, "rev-parse", "main")).trim()).toBe(second.oid);
    expect((await git(gitdir, "rev-parse", "main^{tree}")).trim()).toBe(root.oid);
    expect((await git(gitdir, "log", "--format=%s", "main")).trim().split("\n")).toEqual([
      "second",
      "first",
    ]);
    expect(await git(gitdir, "cat-file", "-p", "main:a/x.go")).toBe("package a\n");
    expect(commitTree(second.payload)).toBe(root.oid);
    expect(tagTarget(tag.payload)).toEqual({ oid: second.oid, type: "commit" });
    const names = parseTree(root.payload).map((entry) => [entry.name.toString(), entry.mode]);
    expect(names).toEqual([
      ["README", "100644"],
      ["a-b", "40000"],
      ["a.b", "100644"],
      ["a", "40000"],
    ]);
    expect(entryKind("40000")).toBe("tree");
  });
});
