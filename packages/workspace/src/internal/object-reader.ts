import type { ObjectType } from "../git-objects.js";

/** A raw object read from a repository. */
export interface RawObject {
  oid: string;
  type: ObjectType;
  content: Buffer;
}

/** Reads objects from one source repository; implemented over `git` or isomorphic-git. */
export interface ObjectReader {
  /** Which implementation this is. */
  readonly engine: "git" | "isomorphic-git";
  /** Resolves a revision (full or abbreviated id, branch, tag) to a full object id. */
  resolve(revision: string): Promise<string>;
  /** Reads objects, returned in the order asked. Throws when one is missing. */
  readMany(oids: readonly string[]): Promise<RawObject[]>;
  /** True once the reader can read no more (its process failed): open another. */
  readonly broken?: boolean;
  /** Releases processes and caches. */
  close(): Promise<void>;
}
