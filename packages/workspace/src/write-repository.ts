import * as fs from "node:fs";
import { DistDebugError } from "@distdebug/schema";
import git from "isomorphic-git";
import type { GitObject } from "./git-objects.js";

/** Options of {@link writeBareRepository}. */
export interface WriteBareRepositoryOptions {
  /** A new or empty folder that becomes the bare repository (a git dir). */
  gitdir: string;
  /** The branch `HEAD` names. */
  defaultBranch: string;
  /** Every object of the repository; each is written as a loose object. */
  objects: Iterable<GitObject>;
  /** Full ref names (`refs/heads/main`, `refs/tags/v1.0`) and the object ids they point at. */
  refs: Readonly<Record<string, string>>;
  signal?: AbortSignal;
}

/**
 * Writes a bare git repository from objects made with {@link blobObject}, {@link treeObjects},
 * {@link commitObject} and {@link tagObject}, and its refs. Every object is written with
 * isomorphic-git, which hashes the same bytes again: an id that differs is `WORKSPACE_ERROR`.
 *
 * @example
 * ```ts
 * const blob = blobObject(Buffer.from("hello\n"));
 * const [tree] = treeObjects(new Map([["hello.txt", blob.oid]]));
 * const person = { name: "Ada", email: "ada@example.org", timestamp: 946684800 };
 * const commit = commitObject({ tree: tree!.oid, parents: [], author: person, committer: person, message: "init" });
 * await writeBareRepository({
 *   gitdir: "/tmp/hello.git",
 *   defaultBranch: "main",
 *   objects: [blob, tree!, commit],
 *   refs: { "refs/heads/main": commit.oid },
 * });
 * ```
 */
export async function writeBareRepository(options: WriteBareRepositoryOptions): Promise<void> {
  const { gitdir } = options;
  await git.init({ fs, dir: gitdir, bare: true, defaultBranch: options.defaultBranch });
  for (const object of options.objects) {
    options.signal?.throwIfAborted();
    const oid = await git.writeObject({
      fs,
      gitdir,
      type: object.type,
      object: object.payload,
      format: "content",
    });
    if (oid !== object.oid)
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `git object ${object.oid} was written as ${oid}`,
        data: { gitdir, oid: object.oid },
      });
  }
  for (const [ref, value] of Object.entries(options.refs))
    await git.writeRef({ fs, gitdir, ref, value, force: true });
}
