import { createHash } from "node:crypto";

/** Git object types as they appear in object headers. */
export type ObjectType = "blob" | "tree" | "commit" | "tag";

/** One entry of a raw tree object. */
export interface TreeEntry {
  /** The mode as written in the tree (`100644`, `100755`, `120000`, `160000`, `40000`). */
  mode: string;
  name: Buffer;
  oid: string;
}

/** Hex SHA-1 of a git object with the given type and content. */
export function hashObject(type: ObjectType, content: Uint8Array): string {
  return createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
}

/** Parses a raw tree object into entries, in stored order. */
export function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.length) {
      throw new Error("malformed tree object");
    }
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
  if (!match?.[1]) throw new Error("malformed commit object: no tree line");
  return match[1];
}

/** The target object id and type of a raw annotated tag object. */
export function tagTarget(content: Buffer): { oid: string; type: string } {
  const text = content.toString("latin1", 0, Math.min(content.length, 200));
  const match = /^object ([0-9a-f]{40})\ntype (\w+)\n/.exec(text);
  if (!match?.[1] || !match[2]) throw new Error("malformed tag object");
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
