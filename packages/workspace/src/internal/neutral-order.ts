import { entryKind, type TreeEntry } from "../git-objects.js";

/** A tree reachable from the workspace commit, by path (the root's path is empty). */
interface PathObject {
  path: Buffer;
  oid: string;
}

/**
 * The neutral order of a workspace's objects: the commit, then its trees by path, then its
 * blobs by path (bytewise; an object stored at several paths sits at the first). It depends on
 * the tree alone, never on the source's pack order (recency-ordered by git servers, so the
 * files a fix changed would come last) nor on the order objects were read. Submodule commits
 * are not stored and not listed.
 */
export function neutralObjectOrder(
  commit: string,
  rootTree: string,
  treeEntries: (oid: string) => readonly TreeEntry[] | undefined,
): string[] {
  const trees: PathObject[] = [];
  const blobs: PathObject[] = [];
  const stack: PathObject[] = [{ path: Buffer.alloc(0), oid: rootTree }];
  while (stack.length > 0) {
    const tree = stack.pop() as PathObject;
    trees.push(tree);
    for (const entry of treeEntries(tree.oid) ?? []) {
      const path =
        tree.path.length === 0
          ? entry.name
          : Buffer.concat([tree.path, Buffer.from("/"), entry.name]);
      const kind = entryKind(entry.mode);
      if (kind === "tree") stack.push({ path, oid: entry.oid });
      else if (kind !== "submodule") blobs.push({ path, oid: entry.oid });
    }
  }
  const byPath = (a: PathObject, b: PathObject) => Buffer.compare(a.path, b.path);
  const order = [commit, ...trees.sort(byPath), ...blobs.sort(byPath)].map((object) =>
    typeof object === "string" ? object : object.oid,
  );
  return [...new Set(order)];
}
