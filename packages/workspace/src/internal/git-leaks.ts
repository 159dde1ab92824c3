import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { type GitEngine, openReader } from "../engine.js";
import { commitParents } from "../fix-lines.js";
import { commitTree, entryKind, parseTree } from "../git-objects.js";
import type { LeakScanner } from "./leak-scanner.js";
import { NEUTRAL_IDENTITY, NEUTRAL_MESSAGE, NEUTRAL_TIME } from "./materialize.js";
import { neutralObjectOrder } from "./neutral-order.js";
import { listObjectIds, PackReader } from "./pack-reader.js";

/** What the git-folder checks share: the folder, the scanner, and how paths are shown. */
export interface GitLeakContext {
  gitDir: string;
  scanner: LeakScanner;
  /** A path as shown in findings (relative to the workspace). */
  rel: (path: string) => string;
  engine: GitEngine | undefined;
  /** Lists the files under a folder, recursively. */
  walkFiles: (root: string) => Promise<string[]>;
}

const allowedGitEntries = new Set([
  "HEAD",
  "config",
  "description",
  "index",
  "objects",
  "refs",
  "hooks",
  "info",
  "logs",
  "COMMIT_EDITMSG",
]);

const READ_BATCH = 512;

/**
 * Checks the `.git` folder's layout, metadata files, config, HEAD and refs, then every stored
 * object; returns the number of objects stored.
 */
export async function checkGitFolder(context: GitLeakContext): Promise<number> {
  await checkGitEntries(context);
  await scanMetadataFiles(context);
  await checkAlternates(context);
  await checkConfig(context);
  const headRef = await checkHead(context);
  await checkRefs(context, headRef);
  return checkObjects(context, headRef);
}

async function checkGitEntries({ gitDir, scanner }: GitLeakContext): Promise<void> {
  for (const name of await readdir(gitDir))
    if (!allowedGitEntries.has(name))
      scanner.add({
        kind: "git-metadata",
        file: `.git/${name}`,
        detail: `unexpected ${name} in .git (refs, reflogs, remotes or state of another repository)`,
      });
}

/** Every file of `.git` but the objects: needles, fix lines, and reflogs. */
async function scanMetadataFiles({
  gitDir,
  scanner,
  rel,
  walkFiles,
}: GitLeakContext): Promise<void> {
  const metaFiles = (await walkFiles(gitDir)).filter(
    (path) => !path.startsWith(join(gitDir, "objects") + "/"),
  );
  for (const path of metaFiles) {
    const file = rel(path);
    if (path.startsWith(join(gitDir, "logs") + "/"))
      scanner.add({
        kind: "git-metadata",
        file,
        detail: "a reflog exists (history of ref updates)",
      });
    scanner.scan(await readFile(path), file, "");
  }
}

async function checkAlternates({ gitDir, scanner }: GitLeakContext): Promise<void> {
  for (const alt of ["objects/info/alternates", "objects/info/http-alternates"])
    if (await lstat(join(gitDir, alt)).catch(() => undefined))
      scanner.add({
        kind: "git-metadata",
        file: `.git/${alt}`,
        detail: "objects are borrowed from another repository",
      });
}

async function checkConfig({ gitDir, scanner }: GitLeakContext): Promise<void> {
  const config = await readFile(join(gitDir, "config"), "utf8").catch(() => "");
  for (const match of config.matchAll(
    /^\s*\[(remote|submodule|branch|include|includeIf)\b[^\]]*\]/gim,
  ))
    scanner.add({
      kind: "git-metadata",
      file: ".git/config",
      detail: `config section ${match[0].trim()} (expected none)`,
    });
}

/** HEAD must name a branch; returns that branch's ref. */
async function checkHead({ gitDir, scanner }: GitLeakContext): Promise<string | undefined> {
  const head = (await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "")).trim();
  const headRef = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (!headRef)
    scanner.add({
      kind: "history",
      file: ".git/HEAD",
      detail: `HEAD should name a branch, found ${JSON.stringify(head.slice(0, 60))}`,
    });
  return headRef;
}

async function checkRefs(
  { gitDir, scanner, walkFiles }: GitLeakContext,
  headRef: string | undefined,
): Promise<void> {
  const refFiles = (await walkFiles(join(gitDir, "refs")).catch(() => [])).map((path) =>
    relative(gitDir, path),
  );
  for (const ref of refFiles)
    if (ref !== headRef)
      scanner.add({
        kind: "git-metadata",
        file: `.git/${ref}`,
        detail: `extra ref ${ref} (expected only ${headRef ?? "the HEAD branch"})`,
      });
}

/** The stored objects: their ids, where each is stored, types, and the non-blob contents. */
interface StoredObjects {
  ids: string[];
  where: Map<string, string>;
  types: Map<string, string>;
  contents: Map<string, Buffer>;
}

/** Scans every stored object, and checks that all hang off the one neutral commit. */
async function checkObjects(context: GitLeakContext, headRef: string | undefined): Promise<number> {
  const { gitDir, scanner } = context;
  const stored = await scanObjects(context);
  const { ids, where, types } = stored;
  const commits = ids.filter((oid) => types.get(oid) === "commit");
  const headCommit = headRef
    ? (await readFile(join(gitDir, headRef), "utf8").catch(() => "")).trim()
    : "";
  if (commits.length !== 1)
    scanner.add({
      kind: "history",
      file: ".git/objects",
      detail: `${commits.length} commits stored (expected exactly 1): ${commits.slice(0, 5).join(", ")}`,
    });
  const reachable = reachableObjects(context, stored, headCommit);
  if (reachable.size > 0) checkObjectOrder(context, stored, headCommit);
  for (const oid of ids)
    if (!reachable.has(oid))
      scanner.add({
        kind: "extra-object",
        file: where.get(oid) ?? ".git/objects",
        detail: `${types.get(oid) ?? "object"} ${oid} is not part of the workspace commit`,
      });
  return ids.length;
}

/** Reads every stored object in batches and scans its content. */
async function scanObjects({
  gitDir,
  scanner,
  rel,
  engine,
}: GitLeakContext): Promise<StoredObjects> {
  const reader = await openReader(gitDir, engine);
  try {
    const where = new Map(listObjectIds(gitDir).map((entry) => [entry.oid, rel(entry.file)]));
    const ids = [...where.keys()];
    const types = new Map<string, string>();
    const contents = new Map<string, Buffer>();
    for (let at = 0; at < ids.length; at += READ_BATCH) {
      for (const object of await reader.readMany(ids.slice(at, at + READ_BATCH))) {
        types.set(object.oid, object.type);
        const file = where.get(object.oid) ?? ".git/objects";
        scanner.scan(object.content, file, `${object.type} ${object.oid} `);
        if (object.type !== "blob") contents.set(object.oid, object.content);
      }
    }
    return { ids, where, types, contents };
  } finally {
    await reader.close();
  }
}

/**
 * The objects must be stored in the neutral order (see `neutralObjectOrder`): a pack written
 * in the source's order (recency-ordered by git servers) names the files a fix changed by
 * what comes last.
 */
function checkObjectOrder(
  { gitDir, scanner }: GitLeakContext,
  { ids, where, contents }: StoredObjects,
  headCommit: string,
): void {
  const content = contents.get(headCommit);
  if (!content) return;
  const expected = neutralObjectOrder(headCommit, commitTree(content), (oid) => {
    const tree = contents.get(oid);
    return tree ? parseTree(tree) : undefined;
  });
  const reader = new PackReader(gitDir);
  const stored = reader.storageOrder(ids);
  reader.close();
  const present = new Set(ids);
  const wanted = expected.filter((oid) => present.has(oid));
  const at = wanted.findIndex((oid, index) => stored[index] !== oid);
  if (at < 0) return;
  const found = stored[at] ?? "";
  scanner.add({
    kind: "pack-order",
    file: where.get(found) ?? ".git/objects",
    detail: `objects are not stored in the neutral order (the commit, then trees and blobs by path): object ${at + 1} is ${found}, expected ${wanted[at]}`,
  });
}

/** The HEAD commit (which must be the neutral parentless one), its trees and blobs. */
function reachableObjects(
  { scanner }: GitLeakContext,
  { where, contents }: StoredObjects,
  headCommit: string,
): Set<string> {
  const reachable = new Set<string>();
  const content = headCommit ? contents.get(headCommit) : undefined;
  if (!content) {
    scanner.add({
      kind: "history",
      file: ".git/HEAD",
      detail: `HEAD does not point at a stored commit (${JSON.stringify(headCommit)})`,
    });
    return reachable;
  }
  if (!isNeutralCommit(content))
    scanner.add({
      kind: "history",
      file: where.get(headCommit) ?? ".git/objects",
      detail: `commit ${headCommit} is not the neutral parentless workspace commit`,
    });
  reachable.add(headCommit);
  const stack = [commitTree(content)];
  while (stack.length > 0) {
    const tree = stack.pop() as string;
    if (reachable.has(tree)) continue;
    reachable.add(tree);
    for (const entry of parseTree(contents.get(tree) ?? Buffer.alloc(0))) {
      const kind = entryKind(entry.mode);
      if (kind === "tree") stack.push(entry.oid);
      else if (kind !== "submodule") reachable.add(entry.oid);
    }
  }
  return reachable;
}

function isNeutralCommit(content: Buffer): boolean {
  const expected = `author ${NEUTRAL_IDENTITY} ${NEUTRAL_TIME} +0000\ncommitter ${NEUTRAL_IDENTITY} ${NEUTRAL_TIME} +0000\n\n${NEUTRAL_MESSAGE}`;
  return (
    commitParents(content).length === 0 &&
    content.toString("utf8").endsWith(expected) &&
    /^tree [0-9a-f]{40}\nauthor /.test(content.toString("latin1"))
  );
}
