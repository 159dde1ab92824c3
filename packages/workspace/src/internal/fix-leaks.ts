import { DistDebugError } from "@distdebug/schema";
import { type GitEngine, openReader } from "../engine.js";
import { commitParents, distinctiveLines, treeBlobs } from "../fix-lines.js";
import { commitTree } from "../git-objects.js";
import type { FixLineHit } from "./leak-scanner.js";
import type { ObjectReader } from "./object-reader.js";
import { localGitDir } from "./source-repo.js";

/** The fix a leakage check looks for: its id, the lines it adds, and the buggy tree. */
export interface FixLeaks {
  reader: ObjectReader;
  commit: string;
  /** Distinctive lines the fix adds to the files it changes. */
  candidates: Set<string>;
  buggyTree: string | undefined;
  /** Paths whose blobs the repository lacks: never read. */
  missing: ReadonlySet<string>;
}

/** The fix's options of a leakage check. */
export interface FixSource {
  repo: string;
  commit: string;
  buggyCommit?: string;
  /** Paths whose blobs the repository lacks (a mirror snapshot): not read, at either commit. */
  missingPaths?: readonly string[];
}

const READ_BATCH = 512;

/** Opens the fix's repository and works out its commit id and candidate lines. */
export async function openFixLeaks(
  fix: FixSource,
  engine: GitEngine | undefined,
): Promise<FixLeaks> {
  const reader = await openReader(await localGitDir(fix.repo), engine);
  let commit: string;
  try {
    commit = await reader.resolve(fix.commit);
  } catch (error) {
    await reader.close();
    throw new DistDebugError({
      code: "WORKSPACE_ERROR",
      message: `${fix.repo}: fix commit ${fix.commit} not found`,
      cause: error,
    });
  }
  const [fixObject] = await reader.readMany([commit]);
  const fixContent = fixObject?.content ?? Buffer.alloc(0);
  const buggy = fix.buggyCommit
    ? await reader.resolve(fix.buggyCommit)
    : commitParents(fixContent)[0];
  const missing = new Set(fix.missingPaths ?? []);
  const fixBlobs = present(await treeBlobs(reader, commitTree(fixContent)), missing);
  const buggyTree = buggy ? await treeOf(reader, buggy) : undefined;
  const buggyBlobs = buggyTree
    ? present(await treeBlobs(reader, buggyTree), missing)
    : new Map<string, string>();
  const candidates = await addedLines(reader, fixBlobs, buggyBlobs);
  return { reader, commit, candidates, buggyTree, missing };
}

/** The blobs of a tree but those at `missing` paths. */
function present(blobs: Map<string, string>, missing: ReadonlySet<string>): Map<string, string> {
  for (const path of missing) blobs.delete(path);
  return blobs;
}

async function treeOf(reader: ObjectReader, commit: string): Promise<string> {
  const [object] = await reader.readMany([commit]);
  return commitTree(object?.content ?? Buffer.alloc(0));
}

/** Distinctive lines of the changed files after the fix that none of them had before. */
async function addedLines(
  reader: ObjectReader,
  fixBlobs: ReadonlyMap<string, string>,
  buggyBlobs: ReadonlyMap<string, string>,
): Promise<Set<string>> {
  const changed = [...fixBlobs].filter(([path, oid]) => buggyBlobs.get(path) !== oid);
  const before = new Set<string>();
  const afterObjects = await reader.readMany(changed.map(([, oid]) => oid));
  const beforeIds = changed
    .map(([path]) => buggyBlobs.get(path))
    .filter((oid): oid is string => oid !== undefined);
  for (const object of await reader.readMany(beforeIds))
    for (const line of distinctiveLines(object.content)) before.add(line);
  const candidates = new Set<string>();
  for (const object of afterObjects)
    for (const line of distinctiveLines(object.content))
      if (!before.has(line)) candidates.add(line);
  return candidates;
}

/** The hits whose line occurs nowhere at the buggy revision (those are real leaks). */
export async function confirmFixLines(
  hits: readonly FixLineHit[],
  fix: FixLeaks | undefined,
): Promise<FixLineHit[]> {
  const atBuggy = new Set<string>();
  if (hits.length > 0 && fix?.buggyTree) {
    const hitLines = new Set(hits.map((hit) => hit.line));
    const blobs = [
      ...new Set(present(await treeBlobs(fix.reader, fix.buggyTree), fix.missing).values()),
    ];
    for (let at = 0; at < blobs.length; at += READ_BATCH)
      for (const object of await fix.reader.readMany(blobs.slice(at, at + READ_BATCH)))
        for (const line of distinctiveLines(object.content))
          if (hitLines.has(line)) atBuggy.add(line);
  }
  return hits.filter((hit) => !atBuggy.has(hit.line));
}
