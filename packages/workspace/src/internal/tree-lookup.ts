/**
 * Single paths of a git tree looked up through the trees on their way only (no walk of the
 * whole tree): what reading a few files of a large revision needs.
 */
import { DistDebugError } from "@distdebug/schema";
import { entryKind, parseTree, type TreeEntry } from "../git-objects.js";
import { type EolRules, eolRules } from "./checkout-eol.js";
import type { ObjectReader } from "./object-reader.js";
import { type FileEntry, isUnsafeEntryName } from "./source-tree.js";

/** A blob found at a path, with the line-ending rules that apply to it. */
export interface FoundBlob {
  entry: FileEntry;
  eol: EolRules;
}

/** A regular file (what `checkoutEol` reads `.gitattributes` from). */
function isRegular(mode: string): boolean {
  const kind = entryKind(mode);
  return kind === "file" || kind === "executable";
}

/** Looks up paths of the tree `root` through `reader`, each tree object read once. */
export class TreeLookup {
  readonly #reader: ObjectReader;
  readonly #root: string;
  readonly #trees = new Map<string, Promise<TreeEntry[]>>();
  readonly #blobs = new Map<string, Promise<Buffer>>();

  constructor(reader: ObjectReader, root: string) {
    this.#reader = reader;
    this.#root = root;
  }

  #tree(oid: string): Promise<TreeEntry[]> {
    let tree = this.#trees.get(oid);
    if (!tree) {
      tree = this.#reader.readMany([oid]).then(([object]) => {
        if (object?.type !== "tree")
          throw new DistDebugError({
            code: "WORKSPACE_ERROR",
            message: `object ${oid} should be a tree, is a ${object?.type ?? "missing object"}`,
          });
        return parseTree(object.content);
      });
      tree.catch(() => this.#trees.delete(oid));
      this.#trees.set(oid, tree);
    }
    return tree;
  }

  #blob(oid: string): Promise<Buffer> {
    let blob = this.#blobs.get(oid);
    if (!blob) {
      blob = this.#reader.readMany([oid]).then(([object]) => object?.content ?? Buffer.alloc(0));
      blob.catch(() => this.#blobs.delete(oid));
      this.#blobs.set(oid, blob);
    }
    return blob;
  }

  /**
   * The file or symbolic link at `path` (repository-relative POSIX), with the line-ending
   * rules of the `.gitattributes` files of the folders on its way (the only ones whose
   * patterns can match it); undefined when `path` names no blob (a folder, a submodule, a
   * path through a link or through a name a walk refuses).
   */
  async find(path: string): Promise<FoundBlob | undefined> {
    const names = path.split("/");
    const attributes = new Map<string, string>();
    let oid = this.#root;
    let folder = "";
    for (const [at, name] of names.entries()) {
      // Names a walk of the tree refuses are never looked up either.
      if (isUnsafeEntryName(name)) return undefined;
      const entries = await this.#tree(oid);
      const gitattributes = entries.find(
        (entry) => entry.name.toString("utf8") === ".gitattributes" && isRegular(entry.mode),
      );
      if (gitattributes) attributes.set(`${folder}.gitattributes`, gitattributes.oid);
      const entry = entries.find((candidate) => candidate.name.toString("utf8") === name);
      if (!entry) return undefined;
      const kind = entryKind(entry.mode);
      if (at === names.length - 1) {
        if (kind === "tree" || kind === "submodule") return undefined;
        return {
          entry: { path: Buffer.from(path), mode: entry.mode, oid: entry.oid },
          eol: await this.#eol(attributes),
        };
      }
      if (kind !== "tree") return undefined;
      oid = entry.oid;
      folder = `${folder}${name}/`;
    }
    return undefined;
  }

  async #eol(attributes: ReadonlyMap<string, string>): Promise<EolRules> {
    const contents = new Map<string, Buffer>();
    for (const [path, oid] of attributes) contents.set(path, await this.#blob(oid));
    return eolRules(contents);
  }
}
