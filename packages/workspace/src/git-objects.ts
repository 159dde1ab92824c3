import { createHash } from "node:crypto";
import { DistDebugError } from "@distdebug/schema";

/** Git object types as they appear in object headers. */
export type ObjectType = "blob" | "tree" | "commit" | "tag";

/** A git object in its loose form: type and payload, plus its id. */
export interface GitObject {
  type: ObjectType;
  payload: Buffer;
  oid: string;
}

/** A person line of a commit or tag, with a time in seconds since the epoch (UTC). */
export interface GitSignature {
  name: string;
  email: string;
  timestamp: number;
}

/** One entry of a raw tree object. */
export interface TreeEntry {
  /** The mode as written in the tree (`100644`, `100755`, `120000`, `160000`, `40000`). */
  mode: string;
  name: Buffer;
  oid: string;
}

function malformed(what: string): DistDebugError {
  return new DistDebugError({ code: "WORKSPACE_ERROR", message: `malformed ${what} object` });
}

/** Hex SHA-1 of a git object with the given type and content. */
export function hashObject(type: ObjectType, content: Uint8Array): string {
  return createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
}

function gitObject(type: ObjectType, payload: Buffer): GitObject {
  return { type, payload, oid: hashObject(type, payload) };
}

/** Parses a raw tree object into entries, in stored order. */
export function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw malformed("tree");
    entries.push({
      mode: content.toString("latin1", at, space),
      name: content.subarray(space + 1, nul),
      oid: content.toString("hex", nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

/** Serializes tree entries in the given order (the caller keeps git's order). */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(Buffer.from(`${entry.mode} `, "latin1"), entry.name, Buffer.from([0]));
    parts.push(Buffer.from(entry.oid, "hex"));
  }
  return Buffer.concat(parts);
}

/** The tree id of a raw commit object. */
export function commitTree(content: Buffer): string {
  const match = /^tree ([0-9a-f]{40})\n/.exec(content.toString("latin1", 0, 46));
  if (!match?.[1]) throw malformed("commit");
  return match[1];
}

/** The target object id and type of a raw annotated tag object. */
export function tagTarget(content: Buffer): { oid: string; type: string } {
  const text = content.toString("latin1", 0, Math.min(content.length, 200));
  const match = /^object ([0-9a-f]{40})\ntype (\w+)\n/.exec(text);
  if (!match?.[1] || !match[2]) throw malformed("tag");
  return { oid: match[1], type: match[2] };
}

/** The kind of a tree entry, from its mode. */
export function entryKind(mode: string): "tree" | "file" | "executable" | "symlink" | "submodule" {
  if (mode === "40000" || mode === "040000") return "tree";
  if (mode === "160000") return "submodule";
  if (mode === "120000") return "symlink";
  if (mode === "100755") return "executable";
  return "file";
}

/**
 * A blob of a file's bytes.
 *
 * @example
 * ```ts
 * blobObject(Buffer.from("hello\n")).oid; // "ce013625030ba8dba906f756967f9e9ca394464a", as `git hash-object`
 * ```
 */
export function blobObject(content: Buffer): GitObject {
  return gitObject("blob", content);
}

/** Git's tree order: names compared bytewise, folders as if followed by `/`. */
function treeOrder(a: { name: string; isTree: boolean }, b: { name: string; isTree: boolean }) {
  const left = Buffer.from(a.isTree ? `${a.name}/` : a.name);
  const right = Buffer.from(b.isTree ? `${b.name}/` : b.name);
  return Buffer.compare(left, right);
}

interface Folder {
  files: Map<string, string>;
  folders: Map<string, Folder>;
}

function folderOf(files: ReadonlyMap<string, string>): Folder {
  const root: Folder = { files: new Map(), folders: new Map() };
  for (const [path, oid] of files) {
    const parts = path.split("/");
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) {
        next = { files: new Map(), folders: new Map() };
        folder.folders.set(part, next);
      }
      folder = next;
    }
    folder.files.set(parts[parts.length - 1]!, oid);
  }
  return root;
}

/**
 * The tree objects of a flat file map (POSIX paths to blob ids), root last. Every file has
 * mode 100644.
 *
 * @example
 * ```ts
 * const blob = blobObject(Buffer.from("x\n"));
 * const trees = treeObjects(new Map([["src/a.go", blob.oid]]));
 * const root = trees[trees.length - 1]!.oid;
 * ```
 */
export function treeObjects(files: ReadonlyMap<string, string>): GitObject[] {
  const out: GitObject[] = [];
  const write = (folder: Folder): string => {
    const entries: { name: string; isTree: boolean; oid: string }[] = [];
    for (const [name, oid] of folder.files) entries.push({ name, isTree: false, oid });
    for (const [name, child] of folder.folders)
      entries.push({ name, isTree: true, oid: write(child) });
    entries.sort(treeOrder);
    const tree = gitObject(
      "tree",
      serializeTree(
        entries.map((entry) => ({
          mode: entry.isTree ? "40000" : "100644",
          name: Buffer.from(entry.name),
          oid: entry.oid,
        })),
      ),
    );
    out.push(tree);
    return tree.oid;
  };
  write(folderOf(files));
  return out;
}

function signature(person: GitSignature): string {
  return `${person.name} <${person.email}> ${person.timestamp} +0000`;
}

/** A commit or tag message with one trailing newline. */
function normalizeMessage(message: string): string {
  return `${message.replace(/\s+$/, "")}\n`;
}

/** What a commit object holds. */
export interface CommitFields {
  tree: string;
  parents: readonly string[];
  author: GitSignature;
  committer: GitSignature;
  message: string;
}

/**
 * A commit object; the message is stored with exactly one trailing newline and dates in UTC.
 *
 * @example
 * ```ts
 * const person = { name: "Ada", email: "ada@example.org", timestamp: 946684800 };
 * const commit = commitObject({ tree, parents: [], author: person, committer: person, message: "init" });
 * ```
 */
export function commitObject(fields: CommitFields): GitObject {
  const lines = [`tree ${fields.tree}`];
  for (const parent of fields.parents) lines.push(`parent ${parent}`);
  lines.push(`author ${signature(fields.author)}`, `committer ${signature(fields.committer)}`);
  const text = `${lines.join("\n")}\n\n${normalizeMessage(fields.message)}`;
  return gitObject("commit", Buffer.from(text));
}

/**
 * An annotated tag object pointing at a commit.
 *
 * @example
 * ```ts
 * const tag = tagObject({ object: commit.oid, name: "v1.0.0", tagger: person, message: "release" });
 * ```
 */
export function tagObject(options: {
  object: string;
  name: string;
  tagger: GitSignature;
  message: string;
}): GitObject {
  const text = `object ${options.object}\ntype commit\ntag ${options.name}\ntagger ${signature(options.tagger)}\n\n${normalizeMessage(options.message)}`;
  return gitObject("tag", Buffer.from(text));
}
