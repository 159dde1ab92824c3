import * as fs from "node:fs";
import { DistDebugError } from "@distdebug/schema";
import git from "isomorphic-git";
import { type ObjectType, tagTarget } from "../git-objects.js";
import type { ObjectReader, RawObject } from "./object-reader.js";
import { PackReader } from "./pack-reader.js";

/**
 * Reads objects in pure JavaScript: packs and loose objects through {@link PackReader} (indexes
 * searched in place, one positioned read per object, a cache of delta bases), anything else
 * (and refs) through isomorphic-git, with one shared isomorphic-git cache.
 */
/** A revision that does not name a commit of the repository. */
function badRevision(revision: string, problem: string): never {
  throw new DistDebugError({
    code: "INVALID_ARGUMENT",
    message: `the revision ${revision} ${problem}; pass a commit id, branch or tag that names a commit of this repository`,
    data: { revision },
  });
}

export class IsoGitReader implements ObjectReader {
  readonly engine = "isomorphic-git" as const;
  private readonly cache: object = {};
  private packs: PackReader | undefined;

  constructor(private readonly gitdir: string) {}

  private async readOne(oid: string): Promise<RawObject> {
    this.packs ??= new PackReader(this.gitdir);
    const fast = this.packs.read(oid);
    if (fast) return fast;
    const result = await git.readObject({
      fs,
      gitdir: this.gitdir,
      oid,
      format: "content",
      cache: this.cache,
    });
    const content = result.object as Uint8Array;
    return {
      oid,
      type: result.type as ObjectType,
      content: Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    };
  }

  async resolve(revision: string): Promise<string> {
    // Ancestry suffixes: rev~N, rev^ and rev^N (N-th parent).
    const suffix = /^(.+?)((?:~\d*|\^\d*)+)$/.exec(revision);
    if (suffix?.[1] && suffix[2]) {
      let oid = await this.resolve(suffix[1]);
      for (const step of suffix[2].match(/[~^]\d*/g) ?? []) {
        const count = step.length > 1 ? Number(step.slice(1)) : 1;
        if (step[0] === "~") {
          for (let i = 0; i < count; i++) oid = this.parentOf(await this.readOne(oid), 1, revision);
        } else if (count > 0) oid = this.parentOf(await this.readOne(oid), count, revision);
      }
      return oid;
    }
    let oid: string;
    if (/^[0-9a-f]{40}$/i.test(revision)) oid = revision.toLowerCase();
    else if (/^[0-9a-f]{4,39}$/i.test(revision)) {
      try {
        oid = await git.expandOid({
          fs,
          gitdir: this.gitdir,
          oid: revision.toLowerCase(),
          cache: this.cache,
        });
      } catch {
        oid = await git.resolveRef({ fs, gitdir: this.gitdir, ref: revision });
      }
    } else oid = await git.resolveRef({ fs, gitdir: this.gitdir, ref: revision });
    for (let depth = 0; depth < 10; depth++) {
      const object = await this.readOne(oid);
      if (object.type === "commit") return oid;
      if (object.type !== "tag") badRevision(revision, `names a ${object.type}, not a commit`);
      oid = tagTarget(object.content).oid;
    }
    badRevision(revision, "goes through more than 10 nested tags");
  }

  private parentOf(commit: RawObject, index: number, revision: string): string {
    const parents = [
      ...commit.content
        .toString("latin1")
        .split("\n\n")[0]!
        .matchAll(/^parent ([0-9a-f]{40})$/gm),
    ];
    const parent = parents[index - 1]?.[1];
    if (!parent) badRevision(revision, `commit ${commit.oid} has no parent number ${index}`);
    return parent;
  }

  async readMany(oids: readonly string[]): Promise<RawObject[]> {
    const out: RawObject[] = [];
    for (const oid of oids) out.push(await this.readOne(oid));
    return out;
  }

  async close(): Promise<void> {
    this.packs?.close();
    this.packs = undefined;
  }
}
