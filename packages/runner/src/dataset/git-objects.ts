import { createHash } from "node:crypto";

/** A git object in its loose form: type and payload, plus its id. */
export interface GitObject {
  type: "blob" | "tree" | "commit" | "tag";
  payload: Buffer;
  oid: string;
}

/** A person line of a commit or tag, with a time in seconds since the epoch (UTC). */
export interface GitSignature {
  name: string;
  email: string;
  timestamp: number;
}

function object(type: GitObject["type"], payload: Buffer): GitObject {
  const header = Buffer.from(`${type} ${payload.length}\0`);
  const oid = createHash("sha1").update(header).update(payload).digest("hex");
  return { type, payload, oid };
}

/** A blob of a file's bytes. */
export function blobObject(content: Buffer): GitObject {
  return object("blob", content);
}

/** Git's tree order: names compared bytewise, folders as if followed by `/`. */
function treeOrder(a: { name: string; isTree: boolean }, b: { name: string; isTree: boolean }) {
  const left = Buffer.from(a.isTree ? `${a.name}/` : a.name);
  const right = Buffer.from(b.isTree ? `${b.name}/` : b.name);
  return Buffer.compare(left, right);
}

/**
 * The tree objects of a flat file map (POSIX paths to blob ids), root last.
 * Every file has mode 100644.
 */
export function treeObjects(files: ReadonlyMap<string, string>): GitObject[] {
  interface Folder {
    files: Map<string, string>;
    folders: Map<string, Folder>;
  }
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
  const out: GitObject[] = [];
  const write = (folder: Folder): string => {
    const entries: { name: string; isTree: boolean; oid: string }[] = [];
    for (const [name, oid] of folder.files) entries.push({ name, isTree: false, oid });
    for (const [name, child] of folder.folders)
      entries.push({ name, isTree: true, oid: write(child) });
    entries.sort(treeOrder);
    const payload = Buffer.concat(
      entries.map((entry) =>
        Buffer.concat([
          Buffer.from(`${entry.isTree ? "40000" : "100644"} ${entry.name}\0`),
          Buffer.from(entry.oid, "hex"),
        ]),
      ),
    );
    const tree = object("tree", payload);
    out.push(tree);
    return tree.oid;
  };
  write(root);
  return out;
}

function signature(person: GitSignature): string {
  return `${person.name} <${person.email}> ${person.timestamp} +0000`;
}

/** A commit object; the message is stored with exactly one trailing newline. */
export function commitObject(options: {
  tree: string;
  parents: readonly string[];
  author: GitSignature;
  committer: GitSignature;
  message: string;
}): GitObject {
  const lines = [`tree ${options.tree}`];
  for (const parent of options.parents) lines.push(`parent ${parent}`);
  lines.push(`author ${signature(options.author)}`, `committer ${signature(options.committer)}`);
  const text = `${lines.join("\n")}\n\n${normalizeMessage(options.message)}`;
  return object("commit", Buffer.from(text));
}

/** An annotated tag object pointing at a commit. */
export function tagObject(options: {
  object: string;
  name: string;
  tagger: GitSignature;
  message: string;
}): GitObject {
  const text = `object ${options.object}\ntype commit\ntag ${options.name}\ntagger ${signature(options.tagger)}\n\n${normalizeMessage(options.message)}`;
  return object("tag", Buffer.from(text));
}

/** A commit or tag message with one trailing newline. */
export function normalizeMessage(message: string): string {
  return `${message.replace(/\s+$/, "")}\n`;
}
