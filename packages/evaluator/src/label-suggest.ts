import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { GoldBlock } from "@distdebug/schema";
import { listDirectoryFiles } from "./directory-reader.js";
import { buildSyntaxIndex, buildTextIndex, type FileIndex } from "./internal/build-index.js";
import { decodeSource, splitLines } from "./internal/text.js";
import { parseUnifiedDiff } from "./internal/unified-diff.js";
import { type LanguageChoice, languageMap, languageOf } from "./languages.js";
import { diffLines, type LineEdits } from "./line-diff.js";

/** One file the fix touched: its text at the buggy and at the fixed revision. */
export interface ChangedFile {
  path: string;
  /** Content at the buggy revision; `undefined` when the fix adds the file. */
  buggy: string | Uint8Array | undefined;
  /** Content at the fixed revision; `undefined` when the fix deletes the file. */
  fixed: string | Uint8Array | undefined;
}

/** Proposed gold blocks, for a maintainer to review (`distdebug atoms` shows the atoms). */
export interface GoldSuggestion {
  /** Blocks at the buggy revision, sorted by path and line. */
  blocks: GoldBlock[];
  /** Files the fix adds: they map to nothing at the buggy revision. */
  newFiles: string[];
  /** Files the fix deletes (all their atoms are proposed). */
  deletedFiles: string[];
  /** Changed files whose changes touch no significant line (comments, blank lines). */
  unlabeledFiles: string[];
}

/** Options shared by the suggestion functions. */
export interface SuggestOptions {
  /** Extension to language, merged over the defaults. */
  languages?: Readonly<Record<string, LanguageChoice>>;
}

function indexOf(path: string, content: string | Uint8Array, options: SuggestOptions): FileIndex {
  const language = languageOf(path, languageMap(options.languages));
  const source = decodeSource(content);
  return language === "text" ? buildTextIndex(source) : buildSyntaxIndex(source, language);
}

/** Atom ids of one file's edits: removed rows to their atoms, pure insertions to neighbours. */
function atomsOfEdits(index: FileIndex, edits: LineEdits): Set<number> {
  const atoms = new Set<number>();
  for (const line of edits.removed) {
    const owner = index.owner[line];
    if (owner !== undefined && owner >= 0) atoms.add(owner);
  }
  for (const after of edits.insertions) {
    // The atom before and the atom after the insertion point, in its container.
    let before = -1;
    for (let line = Math.min(after, index.lineCount); line >= 1; line--)
      if ((index.owner[line] as number) >= 0) {
        before = index.owner[line] as number;
        break;
      }
    let next = -1;
    for (let line = after + 1; line <= index.lineCount; line++)
      if ((index.owner[line] as number) >= 0) {
        next = index.owner[line] as number;
        break;
      }
    const beforeFits = before >= 0 && (index.containerEnd[before] as number) > after;
    const nextFits = next >= 0 && (index.containerStart[next] as number) <= after + 1;
    if (beforeFits) atoms.add(before);
    if (nextFits) atoms.add(next);
    if (!beforeFits && !nextFits) {
      if (before >= 0) atoms.add(before);
      else if (next >= 0) atoms.add(next);
    }
  }
  return atoms;
}

/** Runs of consecutive significant lines owned by the chosen atoms, as gold blocks. */
function blocksOf(path: string, index: FileIndex, atoms: Set<number>): GoldBlock[] {
  const blocks: GoldBlock[] = [];
  let open: GoldBlock | undefined;
  for (let line = 1; line <= index.lineCount; line++) {
    const owner = index.owner[line] as number;
    if (owner < 0) continue; // blank and comment lines neither open nor close a run
    if (atoms.has(owner)) {
      if (open) open.endLine = line;
      else {
        open = { path, startLine: line, endLine: line };
        blocks.push(open);
      }
    } else open = undefined;
  }
  return blocks;
}

function suggestFromEdits(
  files: {
    path: string;
    buggy: string | Uint8Array | undefined;
    fixed: boolean;
    edits: LineEdits;
  }[],
  options: SuggestOptions,
): GoldSuggestion {
  const suggestion: GoldSuggestion = {
    blocks: [],
    newFiles: [],
    deletedFiles: [],
    unlabeledFiles: [],
  };
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (file.buggy === undefined) {
      suggestion.newFiles.push(file.path);
      continue;
    }
    const index = indexOf(file.path, file.buggy, options);
    let edits = file.edits;
    if (!file.fixed) {
      suggestion.deletedFiles.push(file.path);
      edits = { removed: Array.from(index.atomLines), insertions: [] };
    }
    const blocks = blocksOf(file.path, index, atomsOfEdits(index, edits));
    if (blocks.length === 0) suggestion.unlabeledFiles.push(file.path);
    suggestion.blocks.push(...blocks);
  }
  return suggestion;
}

/**
 * Proposes gold blocks from the files a fix changed: modified and removed lines map to their
 * atoms at the buggy revision; a pure insertion maps to the atoms before and after the
 * insertion point in its container (the Defects4J rule for faults of omission); new files map
 * to nothing and are reported.
 *
 * @example
 * ```ts
 * const { blocks } = suggestGoldBlocks({
 *   files: [{ path: "raft/raft.go", buggy: before, fixed: after }],
 * });
 * ```
 */
export function suggestGoldBlocks(
  options: SuggestOptions & { files: ChangedFile[] },
): GoldSuggestion {
  return suggestFromEdits(
    options.files.map((file) => {
      const buggyLines = file.buggy === undefined ? [] : splitLines(decodeSource(file.buggy).text);
      const fixedLines = file.fixed === undefined ? [] : splitLines(decodeSource(file.fixed).text);
      return {
        path: file.path,
        buggy: file.buggy,
        fixed: file.fixed !== undefined,
        edits: diffLines(buggyLines, fixedLines),
      };
    }),
    options,
  );
}

/**
 * Proposes gold blocks from a unified diff of the fix and the buggy tree (read through
 * `readBuggy`). Throws `INVALID_ARGUMENT` when the text is not a unified diff.
 *
 * @example
 * ```ts
 * const suggestion = await suggestGoldBlocksFromDiff({ diff, readBuggy: directoryReader(buggyDir) });
 * ```
 */
export async function suggestGoldBlocksFromDiff(
  options: SuggestOptions & {
    diff: string;
    readBuggy: (path: string) => Promise<string | Uint8Array | undefined>;
    /** Name of the diff in error messages. Default `"diff"`. */
    source?: string;
  },
): Promise<GoldSuggestion> {
  const files = [];
  for (const file of parseUnifiedDiff(options.diff, options.source)) {
    const path = file.oldPath ?? file.newPath ?? "";
    const buggy = file.oldPath === undefined ? undefined : await options.readBuggy(file.oldPath);
    files.push({ path, buggy, fixed: file.newPath !== undefined, edits: file });
  }
  return suggestFromEdits(files, options);
}

/**
 * Proposes gold blocks from two folders: the buggy and the fixed revision (`.git` skipped).
 *
 * @example
 * ```ts
 * const suggestion = await suggestGoldBlocksFromTrees({ buggyDir: "work/buggy", fixedDir: "work/fixed" });
 * ```
 */
export async function suggestGoldBlocksFromTrees(
  options: SuggestOptions & { buggyDir: string; fixedDir: string },
): Promise<GoldSuggestion> {
  const buggyFiles = await listDirectoryFiles(options.buggyDir);
  const fixedFiles = await listDirectoryFiles(options.fixedDir);
  const paths = [...new Set([...buggyFiles, ...fixedFiles])].sort();
  const buggySet = new Set(buggyFiles);
  const fixedSet = new Set(fixedFiles);
  const files: ChangedFile[] = [];
  for (const path of paths) {
    const buggy = buggySet.has(path) ? await readFile(join(options.buggyDir, path)) : undefined;
    const fixed = fixedSet.has(path) ? await readFile(join(options.fixedDir, path)) : undefined;
    if (buggy && fixed && buggy.equals(fixed)) continue;
    files.push({ path, buggy, fixed });
  }
  return suggestGoldBlocks({ ...options, files });
}
