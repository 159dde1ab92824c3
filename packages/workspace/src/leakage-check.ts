import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { type GitEngine, openReader } from "./engine.js";
import { commitParents, distinctiveLines, treeBlobs } from "./fix-lines.js";
import { commitTree, entryKind, parseTree } from "./git-objects.js";
import { NEUTRAL_IDENTITY, NEUTRAL_MESSAGE, NEUTRAL_TIME } from "./internal/materialize.js";
import type { ObjectReader } from "./internal/object-reader.js";
import { listObjectIds } from "./internal/pack-reader.js";
import { localGitDir } from "./internal/source-repo.js";
import { compileNeedles } from "./needles.js";

/** What a leakage finding is about. */
export type LeakageKind =
  | "needle"
  | "fix-commit"
  | "fix-line"
  | "history"
  | "git-metadata"
  | "extra-object";

/** One leak: where (a path relative to the workspace) and what. */
export interface LeakageFinding {
  kind: LeakageKind;
  file: string;
  line?: number;
  detail: string;
}

/** Options of {@link checkLeakage}. */
export interface CheckLeakageOptions {
  /** The workspace to check. */
  dir: string;
  /** Strings that must not appear (issue keys...). Default none. */
  needles?: readonly string[];
  /**
   * The fix: its commit id (full, or any 7+ prefix) must not appear and neither may the
   * distinctive lines it adds (trimmed, 20+ characters, absent at the buggy revision).
   * `buggyCommit` defaults to the fix's first parent.
   */
  fix?: { repo: string; commit: string; buggyCommit?: string };
  /** How git objects are read. Default `auto`. */
  engine?: GitEngine;
  /** Stop collecting after this many findings. Default 1000. */
  maxFindings?: number;
}

/** Result of {@link checkLeakage}. */
export interface LeakageReport {
  clean: boolean;
  findings: LeakageFinding[];
  scanned: { files: number; objects: number };
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

async function walkFiles(root: string, skipTopGit: boolean): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (skipTopGit && dir === root && entry.name === ".git") continue;
      if (entry.isDirectory()) await visit(path);
      else out.push(path);
    }
  };
  await visit(root);
  return out;
}

/**
 * Scans a workspace for leaks of the future: needles and the fix commit id in files, names,
 * `.git` metadata and every git object; the fix's distinctive added lines; and checks that
 * history is exactly one neutral, parentless commit on one branch, with no other refs, tags,
 * reflog entries, remotes, alternates or unreachable objects.
 *
 * @example
 * ```ts
 * const report = await checkLeakage({
 *   dir: "/tmp/attempt-1/repo",
 *   needles: ["ZOOKEEPER-2845"],
 *   fix: { repo: "/cache/zookeeper.git", commit: fixCommit },
 * });
 * if (!report.clean) for (const f of report.findings) console.log(f.kind, f.file, f.line, f.detail);
 * ```
 */
export async function checkLeakage(options: CheckLeakageOptions): Promise<LeakageReport> {
  const dir = resolve(options.dir);
  const maxFindings = options.maxFindings ?? 1000;
  const findings: LeakageFinding[] = [];
  const add = (finding: LeakageFinding) => {
    if (findings.length < maxFindings) findings.push(finding);
  };
  const rel = (path: string) => relative(dir, path) || ".";
  const info = await lstat(dir).catch(() => undefined);
  if (!info?.isDirectory())
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `${dir}: no such workspace folder`,
      data: { dir },
    });

  let fixCommit: string | undefined;
  const candidates = new Set<string>();
  let fixReader: ObjectReader | undefined;
  let buggyTree: string | undefined;
  if (options.fix) {
    fixReader = await openReader(await localGitDir(options.fix.repo), options.engine);
    try {
      fixCommit = await fixReader.resolve(options.fix.commit);
    } catch (error) {
      await fixReader.close();
      throw new DistDebugError({
        code: "WORKSPACE_ERROR",
        message: `${options.fix.repo}: fix commit ${options.fix.commit} not found`,
        cause: error,
      });
    }
    const [fixObject] = await fixReader.readMany([fixCommit]);
    const buggy = options.fix.buggyCommit
      ? await fixReader.resolve(options.fix.buggyCommit)
      : commitParents(fixObject?.content ?? Buffer.alloc(0))[0];
    const fixBlobs = await treeBlobs(fixReader, commitTree(fixObject?.content ?? Buffer.alloc(0)));
    const buggyBlobs = new Map<string, string>();
    if (buggy) {
      const [buggyObject] = await fixReader.readMany([buggy]);
      buggyTree = commitTree(buggyObject?.content ?? Buffer.alloc(0));
      for (const [path, oid] of await treeBlobs(fixReader, buggyTree)) buggyBlobs.set(path, oid);
    }
    const changed = [...fixBlobs].filter(([path, oid]) => buggyBlobs.get(path) !== oid);
    const before = new Set<string>();
    const afterObjects = await fixReader.readMany(changed.map(([, oid]) => oid));
    const beforeIds = changed
      .map(([path]) => buggyBlobs.get(path))
      .filter((oid): oid is string => oid !== undefined);
    for (const object of await fixReader.readMany(beforeIds))
      for (const line of distinctiveLines(object.content)) before.add(line);
    for (const object of afterObjects)
      for (const line of distinctiveLines(object.content))
        if (!before.has(line)) candidates.add(line);
  }
  const matcher = compileNeedles([...(options.needles ?? []), ...(fixCommit ? [fixCommit] : [])]);
  const kindOf = (needle: string): LeakageKind => (needle === fixCommit ? "fix-commit" : "needle");

  // Candidate fix lines seen in the workspace: confirmed against the whole buggy tree later.
  const lineHits: { finding: LeakageFinding; line: string }[] = [];
  const scan = (content: Buffer, file: string, what: string) => {
    for (const match of matcher.find(content))
      add({
        kind: kindOf(match.needle),
        file,
        line: match.line,
        detail: `${what}contains ${JSON.stringify(match.text)} (needle ${JSON.stringify(match.needle)})`,
      });
    if (candidates.size === 0) return;
    const lines = content.toString("utf8").split("\n");
    lines.forEach((line, index) => {
      const trimmed = line.trim();
      if (trimmed.length >= 20 && candidates.has(trimmed))
        lineHits.push({
          line: trimmed,
          finding: {
            kind: "fix-line",
            file,
            line: index + 1,
            detail: `${what}contains a line the fix adds: ${JSON.stringify(trimmed.slice(0, 120))}`,
          },
        });
    });
  };
  const scanName = (path: string, file: string) => {
    for (const match of matcher.find(Buffer.from(path)))
      add({
        kind: kindOf(match.needle),
        file,
        detail: `the path contains ${JSON.stringify(match.text)}`,
      });
  };

  // 1. Work tree files.
  const files = await walkFiles(dir, true);
  for (const path of files) {
    const file = rel(path);
    scanName(file, file);
    const stats = await lstat(path);
    if (stats.isSymbolicLink())
      scan(Buffer.from(await readlink(path)), file, "the symlink target ");
    else if (stats.isFile()) scan(await readFile(path), file, "");
  }

  // 2. The .git folder: layout, refs, metadata files.
  const gitDir = join(dir, ".git");
  let objectCount = 0;
  const gitInfo = await lstat(gitDir).catch(() => undefined);
  if (!gitInfo?.isDirectory()) {
    add({
      kind: "history",
      file: ".git",
      detail: "the workspace has no .git folder (expected one neutral commit)",
    });
  } else {
    for (const name of await readdir(gitDir))
      if (!allowedGitEntries.has(name))
        add({
          kind: "git-metadata",
          file: `.git/${name}`,
          detail: `unexpected ${name} in .git (refs, reflogs, remotes or state of another repository)`,
        });
    const metaFiles = (await walkFiles(gitDir, false)).filter(
      (path) => !path.startsWith(join(gitDir, "objects") + "/"),
    );
    for (const path of metaFiles) {
      const file = rel(path);
      if (path.startsWith(join(gitDir, "logs") + "/"))
        add({ kind: "git-metadata", file, detail: "a reflog exists (history of ref updates)" });
      scan(await readFile(path), file, "");
    }
    for (const alt of ["objects/info/alternates", "objects/info/http-alternates"])
      if (await lstat(join(gitDir, alt)).catch(() => undefined))
        add({
          kind: "git-metadata",
          file: `.git/${alt}`,
          detail: "objects are borrowed from another repository",
        });
    const config = await readFile(join(gitDir, "config"), "utf8").catch(() => "");
    for (const match of config.matchAll(
      /^\s*\[(remote|submodule|branch|include|includeIf)\b[^\]]*\]/gim,
    ))
      add({
        kind: "git-metadata",
        file: ".git/config",
        detail: `config section ${match[0].trim()} (expected none)`,
      });
    const refFiles = (await walkFiles(join(gitDir, "refs"), false).catch(() => [])).map((path) =>
      relative(gitDir, path),
    );
    const head = (await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "")).trim();
    const headRef = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
    if (!headRef)
      add({
        kind: "history",
        file: ".git/HEAD",
        detail: `HEAD should name a branch, found ${JSON.stringify(head.slice(0, 60))}`,
      });
    for (const ref of refFiles)
      if (ref !== headRef)
        add({
          kind: "git-metadata",
          file: `.git/${ref}`,
          detail: `extra ref ${ref} (expected only ${headRef ?? "the HEAD branch"})`,
        });

    // 3. Objects: every one is scanned, and all must hang off the one neutral commit.
    const reader = await openReader(gitDir, options.engine);
    try {
      const stored = listObjectIds(gitDir);
      const where = new Map(stored.map((entry) => [entry.oid, rel(entry.file)]));
      const ids = [...where.keys()];
      objectCount = ids.length;
      const types = new Map<string, string>();
      const contents = new Map<string, Buffer>();
      for (let at = 0; at < ids.length; at += 512) {
        for (const object of await reader.readMany(ids.slice(at, at + 512))) {
          types.set(object.oid, object.type);
          const file = where.get(object.oid) ?? ".git/objects";
          scan(object.content, file, `${object.type} ${object.oid} `);
          if (object.type !== "blob") contents.set(object.oid, object.content);
        }
      }
      const commits = ids.filter((oid) => types.get(oid) === "commit");
      const headCommit = headRef
        ? (await readFile(join(gitDir, headRef), "utf8").catch(() => "")).trim()
        : "";
      if (commits.length !== 1)
        add({
          kind: "history",
          file: ".git/objects",
          detail: `${commits.length} commits stored (expected exactly 1): ${commits.slice(0, 5).join(", ")}`,
        });
      const reachable = new Set<string>();
      if (headCommit && contents.has(headCommit)) {
        const content = contents.get(headCommit) ?? Buffer.alloc(0);
        const expected = `author ${NEUTRAL_IDENTITY} ${NEUTRAL_TIME} +0000\ncommitter ${NEUTRAL_IDENTITY} ${NEUTRAL_TIME} +0000\n\n${NEUTRAL_MESSAGE}`;
        if (
          commitParents(content).length > 0 ||
          !content.toString("utf8").endsWith(expected) ||
          !/^tree [0-9a-f]{40}\nauthor /.test(content.toString("latin1"))
        )
          add({
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
      } else
        add({
          kind: "history",
          file: ".git/HEAD",
          detail: `HEAD does not point at a stored commit (${JSON.stringify(headCommit)})`,
        });
      for (const oid of ids)
        if (!reachable.has(oid))
          add({
            kind: "extra-object",
            file: where.get(oid) ?? ".git/objects",
            detail: `${types.get(oid) ?? "object"} ${oid} is not part of the workspace commit`,
          });
    } finally {
      await reader.close();
    }
  }

  // 4. Fix lines seen: drop those that already occur somewhere at the buggy revision.
  const atBuggy = new Set<string>();
  if (lineHits.length > 0 && fixReader && buggyTree) {
    const hitLines = new Set(lineHits.map((hit) => hit.line));
    const blobs = [...new Set((await treeBlobs(fixReader, buggyTree)).values())];
    for (let at = 0; at < blobs.length; at += 512)
      for (const object of await fixReader.readMany(blobs.slice(at, at + 512)))
        for (const line of distinctiveLines(object.content))
          if (hitLines.has(line)) atBuggy.add(line);
  }
  for (const hit of lineHits) if (!atBuggy.has(hit.line)) add(hit.finding);
  await fixReader?.close();
  return {
    clean: findings.length === 0,
    findings,
    scanned: { files: files.length, objects: objectCount },
  };
}
