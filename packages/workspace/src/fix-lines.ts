import { entryKind, parseTree } from "./git-objects.js";
import type { ObjectReader } from "./internal/object-reader.js";

/** Shortest trimmed line of a fix that counts as distinctive. */
export const MIN_FIX_LINE_LENGTH = 20;

/** Splits content into trimmed lines of at least {@link MIN_FIX_LINE_LENGTH} characters. */
export function distinctiveLines(content: Buffer): string[] {
  const out: string[] = [];
  for (const line of content.toString("utf8").split("\n")) {
    const trimmed = line.trim();
    if (trimmed.length >= MIN_FIX_LINE_LENGTH) out.push(trimmed);
  }
  return out;
}

/** Blob ids of a tree, recursively, by path. */
export async function treeBlobs(reader: ObjectReader, tree: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let level: { oid: string; path: string }[] = [{ oid: tree, path: "" }];
  while (level.length > 0) {
    const objects = await reader.readMany(level.map((node) => node.oid));
    const next: { oid: string; path: string }[] = [];
    objects.forEach((object, index) => {
      const base = level[index]?.path ?? "";
      for (const entry of parseTree(object.content)) {
        const path = `${base}${entry.name.toString("utf8")}`;
        const kind = entryKind(entry.mode);
        if (kind === "tree") next.push({ oid: entry.oid, path: `${path}/` });
        else if (kind !== "submodule") out.set(path, entry.oid);
      }
    });
    level = next;
  }
  return out;
}

export function commitParents(content: Buffer): string[] {
  const head = content.toString("latin1").split("\n\n")[0] ?? "";
  return [...head.matchAll(/^parent ([0-9a-f]{40})$/gm)].map((match) => match[1] ?? "");
}
