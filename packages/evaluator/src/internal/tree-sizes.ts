import { createHash } from "node:crypto";
import { type LanguageChoice, languageMap } from "../languages.js";
import type { RepositorySize } from "./repository-size.js";
import { ROW_COUNT_RULE, type RowCounts } from "./row-counts.js";

/**
 * The version of the rule that says which listed files R counts and how (every listed file
 * whose extension maps to a language, by `RepositoryCounter`). Bump it when that changes:
 * trees kept under another version are counted again.
 */
export const TREE_SIZE_RULE = "listed-source-files-1";

/** A tree as {@link TreeContents.tree} names it: git's root tree id and the listing's rules. */
export interface TreeId {
  id: string;
  rules: string;
}

/** The keys of a tree's size R in the row counts: its rows, and its files counted. */
export interface TreeSizeKeys {
  rows: string;
  files: string;
}

/**
 * The keys a tree's R is kept under: the tree id with a digest of everything else R depends
 * on (the counting rules, the rules that list the tree's files and make their bytes, and the
 * language map that says which files are source). A tree id is git's hash of the tree's
 * bytes, which name every file's blob and mode: the same keys always mean the same R.
 */
export function treeSizeKeys(
  tree: TreeId,
  languages: Readonly<Record<string, LanguageChoice>> | undefined,
): TreeSizeKeys {
  const merged = languageMap(languages);
  const sorted = Object.keys(merged)
    .sort()
    .map((extension) => [extension, merged[extension]]);
  const digest = createHash("sha256")
    .update(JSON.stringify([ROW_COUNT_RULE, TREE_SIZE_RULE, tree.rules, sorted]))
    .digest("hex")
    .slice(0, 16);
  return { rows: `${tree.id}:size-${digest}`, files: `${tree.id}:files-${digest}` };
}

/** The R kept for a tree (both entries passed their check), or undefined. */
export async function knownTreeSize(
  counts: RowCounts,
  keys: TreeSizeKeys,
): Promise<RepositorySize | undefined> {
  const known = await counts.known([keys.rows, keys.files]);
  const rows = known.get(keys.rows);
  const files = known.get(keys.files);
  return rows === undefined || files === undefined ? undefined : { rows, files };
}

/** Keeps a tree's R, counted file by file from its content keys (a complete count only). */
export function keepTreeSize(
  counts: RowCounts,
  keys: TreeSizeKeys,
  size: RepositorySize,
): Promise<void> {
  return counts.keep(
    new Map([
      [keys.rows, size.rows],
      [keys.files, size.files],
    ]),
  );
}
