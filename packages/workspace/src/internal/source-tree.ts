/**
 * The tree of a source commit as the work tree holds it: walked breadth first with every name
 * checked, and the `.gitattributes` line-ending rules of its files. Shared by `materialize`
 * (which writes it) and `openRevisionFiles` (which reads it in place).
 */
import { DistDebugError } from "@distdebug/schema";
import { entryKind, parseTree, type TreeEntry } from "../git-objects.js";
import { type EolRules, eolRules } from "./checkout-eol.js";
import type { ObjectReader } from "./object-reader.js";

/** A blob of the tree (a file, an executable or a symbolic link) at its path. */
export interface FileEntry {
  path: Buffer;
  mode: string;
  oid: string;
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new DistDebugError({ code: "ABORTED", message: "workspace preparation was aborted" });
}

/** A tree entry name no checkout may write: empty, `.`, `..`, holding a `/`, or `.git` in any case. */
export function isUnsafeEntryName(text: string): boolean {
  return (
    text === "" ||
    text === "." ||
    text === ".." ||
    text.includes("/") ||
    text.toLowerCase() === ".git"
  );
}

function checkName(name: Buffer, parent: Buffer): void {
  const text = name.toString("latin1");
  if (isUnsafeEntryName(text)) {
    throw new DistDebugError({
      code: "WORKSPACE_ERROR",
      message: `the source tree has an unsafe entry ${JSON.stringify(text)} in ${JSON.stringify(parent.toString("utf8") || "/")}; refusing to write it`,
      data: { path: parent.toString("utf8"), name: text },
    });
  }
}

/** The `.gitattributes` line-ending rules of a tree's files (read before any blob is written). */
export async function checkoutEol(
  reader: ObjectReader,
  files: readonly FileEntry[],
): Promise<EolRules> {
  const attributeFiles = files.filter(
    (file) =>
      entryKind(file.mode) !== "symlink" &&
      /(^|\/)\.gitattributes$/.test(file.path.toString("utf8")),
  );
  const contents = new Map<string, Buffer>();
  if (attributeFiles.length === 0) return eolRules(contents);
  const objects = await reader.readMany([...new Set(attributeFiles.map((file) => file.oid))]);
  const byOid = new Map(objects.map((object) => [object.oid, object.content]));
  for (const file of attributeFiles)
    contents.set(file.path.toString("utf8"), byOid.get(file.oid) ?? Buffer.alloc(0));
  return eolRules(contents);
}

/** The source commit's tree, walked: every tree parsed, and what the work tree holds. */
export interface SourceTree {
  root: string;
  trees: Map<string, TreeEntry[]>;
  files: FileEntry[];
  submodules: { path: Buffer; oid: string }[];
  dirs: Buffer[];
}

/** Bytewise path order: a folder before what it holds, and the same on every machine. */
function byPath(a: { path: Buffer }, b: { path: Buffer }): number {
  return Buffer.compare(a.path, b.path);
}

/** Walks the trees breadth first, one batch of reads per level, checking every name. */
export async function walkSourceTree(
  reader: ObjectReader,
  root: string,
  signal: AbortSignal | undefined,
): Promise<SourceTree> {
  const walked: SourceTree = { root, trees: new Map(), files: [], submodules: [], dirs: [] };
  const { trees } = walked;
  let level: { oid: string; path: Buffer }[] = [{ oid: root, path: Buffer.alloc(0) }];
  while (level.length > 0) {
    checkAborted(signal);
    const missing = [...new Set(level.map((node) => node.oid).filter((oid) => !trees.has(oid)))];
    for (const object of await reader.readMany(missing)) {
      if (object.type !== "tree")
        throw new DistDebugError({
          code: "WORKSPACE_ERROR",
          message: `object ${object.oid} should be a tree, is a ${object.type}`,
        });
      trees.set(object.oid, parseTree(object.content));
    }
    level = level.flatMap((node) => sortEntries(walked, node));
  }
  walked.files.sort(byPath);
  return walked;
}

/** Files the entries of one tree node as folders, submodules or files; returns its subtrees. */
function sortEntries(
  walked: SourceTree,
  node: { oid: string; path: Buffer },
): { oid: string; path: Buffer }[] {
  const next: { oid: string; path: Buffer }[] = [];
  for (const entry of walked.trees.get(node.oid) ?? []) {
    checkName(entry.name, node.path);
    const path =
      node.path.length === 0
        ? entry.name
        : Buffer.concat([node.path, Buffer.from("/"), entry.name]);
    const kind = entryKind(entry.mode);
    if (kind === "tree") {
      walked.dirs.push(path);
      next.push({ oid: entry.oid, path });
    } else if (kind === "submodule") walked.submodules.push({ path, oid: entry.oid });
    else walked.files.push({ path, mode: entry.mode, oid: entry.oid });
  }
  return next;
}
