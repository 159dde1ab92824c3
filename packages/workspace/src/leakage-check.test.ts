import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { neutralizeTimes } from "./internal/neutral-times.js";
import { PackWriter } from "./internal/pack-writer.js";
import { checkLeakage, type LeakageReport } from "./leakage-check.js";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";

/** 2000-01-01, the one time of every workspace entry. */
const NEUTRAL_MS = 946684800_000;
let source: SourceFixture;
let cacheDir: string;
beforeAll(async () => {
  source = await sourceFixture();
  cacheDir = join(await testdir(), "cache");
});

async function workspace(): Promise<string> {
  const dir = join(await testdir(), "ws");
  await prepareWorkspace({
    source: source.dir,
    commit: source.buggy,
    dir,
    needles: [source.issueKey, source.fix],
    cacheDir,
  });
  return dir;
}

/**
 * Checks a workspace the test planted leaks in; the plants' own times are set neutral first
 * (times are checked on their own below).
 */
async function check(dir: string): Promise<LeakageReport> {
  await neutralizeTimes(dir);
  return checkLeakage({
    dir,
    needles: [source.issueKey],
    fix: { repo: source.dir, commit: source.fix },
  });
}

const summary = (report: LeakageReport) =>
  report.findings.map((f) => `${f.kind} ${f.file}${f.line ? `:${f.line}` : ""}`);

describe("checkLeakage", () => {
  it("passes a freshly prepared workspace, on both engines", async () => {
    const dir = await workspace();
    for (const engine of ["git", "isomorphic-git"] as const) {
      const report = await checkLeakage({
        dir,
        needles: [source.issueKey],
        fix: { repo: source.dir, commit: source.fix },
        engine,
      });
      expect(report.findings).toEqual([]);
      expect(report.clean).toBe(true);
      expect(report.scanned.files).toBeGreaterThan(5);
      expect(report.scanned.objects).toBeGreaterThan(10);
    }
  });

  it("catches the issue key, the fix id and its prefixes, and fix lines in files, with lines", async () => {
    const dir = await workspace();
    writeFileSync(
      join(dir, "notes.md"),
      `one\nsee zookeeper-2845 upstream\nfixed by ${source.fix.slice(0, 9)}\n`,
    );
    appendFileSync(join(dir, "README.md"), `full id ${source.fix}\n`);
    writeFileSync(
      join(dir, "src/main/java/org/example/Patch.java"),
      `class P {\n    ${source.fixLine}\n}\n`,
    );
    const report = await check(dir);
    expect(report.clean).toBe(false);
    expect(summary(report)).toEqual(
      expect.arrayContaining([
        "needle notes.md:2",
        "fix-commit notes.md:3",
        "fix-commit README.md:4",
        "fix-line src/main/java/org/example/Patch.java:2",
      ]),
    );
    expect(report.findings).toHaveLength(4);
  });

  it("reports a leaking content at every place it is seen: files with the same bytes, and its blob in .git", async () => {
    const dir = await workspace();
    const text = `one\nsee zookeeper-2845 upstream\nclass P {\n    ${source.fixLine}\n}\n`;
    writeFileSync(join(dir, "a.md"), text);
    mkdirSync(join(dir, "b"));
    writeFileSync(join(dir, "b/a.md"), text);
    const oid = git(dir, "hash-object", "-w", "a.md").trim();
    const report = await check(dir);
    const where = report.findings.map(
      (f) => `${f.kind} ${f.file}${f.line ? `:${f.line}` : ""} ${f.detail.slice(0, 12)}`,
    );
    const object = `.git/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
    expect(where.sort()).toEqual(
      [
        'needle a.md:2 contains "zo',
        'needle b/a.md:2 contains "zo',
        `extra-object ${object} blob ${oid.slice(0, 7)}`,
        `needle ${object}:2 blob ${oid.slice(0, 7)}`,
        "fix-line a.md:4 contains a l",
        "fix-line b/a.md:4 contains a l",
        `fix-line ${object}:4 blob ${oid.slice(0, 7)}`,
      ].sort(),
    );
  });

  it("does not flag lines that already exist at the buggy revision", async () => {
    const dir = await workspace();
    writeFileSync(
      join(dir, "copy.java"),
      "        long zxid = snapLog.restore(dataTree, sessions);\n",
    );
    expect((await check(dir)).findings).toEqual([]);
  });

  it("catches history: tags, branches, extra commits, reflogs, fetched objects, remotes, alternates, packed refs", async () => {
    const dir = await workspace();
    git(dir, "tag", "v1.1");
    git(dir, "branch", "other");
    let report = await check(dir);
    expect(summary(report)).toEqual(
      expect.arrayContaining([
        "git-metadata .git/refs/tags/v1.1",
        "git-metadata .git/refs/heads/other",
      ]),
    );

    const committed = await workspace();
    writeFileSync(join(committed, "new.txt"), "agent work\n");
    git(committed, "add", "new.txt");
    git(committed, "commit", "-q", "-m", "agent commit");
    report = await check(committed);
    const kinds = new Set(report.findings.map((f) => f.kind));
    expect(kinds).toContain("history");
    expect(summary(report)).toContain("git-metadata .git/logs/HEAD");

    const fetched = await workspace();
    git(fetched, "fetch", "-q", source.dir, `${source.fix}:refs/remotes/leak/fix`);
    report = await check(fetched);
    expect(report.findings.some((f) => f.kind === "extra-object")).toBe(true);
    expect(report.findings.some((f) => f.kind === "fix-commit" && f.file.startsWith(".git/"))).toBe(
      true,
    );
    expect(report.findings.some((f) => f.kind === "needle" && f.detail.includes("commit"))).toBe(
      true,
    );
    expect(
      report.findings.some((f) => f.kind === "fix-line" && f.file.startsWith(".git/objects")),
    ).toBe(true);
    expect(summary(report)).toEqual(
      expect.arrayContaining([
        "git-metadata .git/FETCH_HEAD",
        "git-metadata .git/refs/remotes/leak/fix",
      ]),
    );

    const remote = await workspace();
    git(remote, "remote", "add", "origin", "https://example.com/apache/zookeeper.git");
    writeFileSync(join(remote, ".git/packed-refs"), `${source.fix} refs/tags/v1.1\n`);
    mkdirSync(join(remote, ".git/objects/info"), { recursive: true });
    writeFileSync(
      join(remote, ".git/objects/info/alternates"),
      `${join(source.dir, ".git/objects")}\n`,
    );
    report = await check(remote);
    const details = report.findings.map((f) => `${f.kind} ${f.file} ${f.detail}`);
    expect(
      details.some((d) => d.startsWith("git-metadata .git/config config section [remote")),
    ).toBe(true);
    expect(details.some((d) => d.startsWith("git-metadata .git/packed-refs"))).toBe(true);
    expect(details.some((d) => d.startsWith("fix-commit .git/packed-refs"))).toBe(true);
    expect(details.some((d) => d.startsWith("git-metadata .git/objects/info/alternates"))).toBe(
      true,
    );
  });

  it("catches a needle in a file name and a workspace with no history at all", async () => {
    const dir = await workspace();
    writeFileSync(join(dir, "ZOOKEEPER-2845.patch"), "nothing\n");
    expect(summary(await check(dir))).toContain("needle ZOOKEEPER-2845.patch");
    rmSync(join(dir, ".git"), { recursive: true });
    rmSync(join(dir, "ZOOKEEPER-2845.patch"));
    expect(summary(await check(dir))).toEqual(["history .git"]);
  });

  it("reports findings in a fixed order (work tree, .git layout, metadata, objects, fix lines) and stops at maxFindings", async () => {
    const dir = await workspace();
    writeFileSync(join(dir, "ZOOKEEPER-2845.txt"), `fixed by ${source.fix.slice(0, 9)}\n`);
    writeFileSync(join(dir, "Patch.java"), `class P {\n    ${source.fixLine}\n}\n`);
    git(dir, "tag", "v1.1");
    git(dir, "remote", "add", "origin", "https://example.com/apache/zookeeper.git");
    writeFileSync(join(dir, ".git/packed-refs"), `${source.fix} refs/tags/v2\n`);
    mkdirSync(join(dir, ".git/objects/info"), { recursive: true });
    writeFileSync(join(dir, ".git/objects/info/alternates"), "/elsewhere/objects\n");
    const full = (report: LeakageReport) =>
      report.findings.map(
        (f) =>
          `${f.kind} ${f.file}${f.line ? `:${f.line}` : ""} ${f.detail.replaceAll(source.fix, "<fix>").replaceAll(source.fix.slice(0, 9), "<fix9>")}`,
      );
    const all = full(await check(dir));
    expect(all).toMatchInlineSnapshot(`
      [
        "needle ZOOKEEPER-2845.txt the path contains "ZOOKEEPER-2845"",
        "fix-commit ZOOKEEPER-2845.txt:1 contains "<fix9>" (needle "<fix>")",
        "git-metadata .git/packed-refs unexpected packed-refs in .git (refs, reflogs, remotes or state of another repository)",
        "fix-commit .git/packed-refs:1 contains "<fix>" (needle "<fix>")",
        "git-metadata .git/objects/info/alternates objects are borrowed from another repository",
        "git-metadata .git/config config section [remote "origin"] (expected none)",
        "git-metadata .git/refs/tags/v1.1 extra ref refs/tags/v1.1 (expected only refs/heads/main)",
        "fix-line Patch.java:2 contains a line the fix adds: "if (zxid < lastProcessedZxid) throw new IllegalStateException(\\"snapshot older than log\\");"",
      ]
    `);
    await neutralizeTimes(dir);
    const capped = await checkLeakage({
      dir,
      needles: [source.issueKey],
      fix: { repo: source.dir, commit: source.fix },
      maxFindings: 3,
    });
    expect(full(capped)).toEqual(all.slice(0, 3));
    expect(capped.clean).toBe(false);
  });

  it("catches a build time or a reader's atime on a folder or a file, and leaves no atime of its own", async () => {
    const dir = await workspace();
    expect((await check(dir)).findings).toEqual([]);
    // The check read every file: the atimes it found are back.
    expect(lstatSync(join(dir, "src/main/java/org/example/Server.java")).atimeMs).toBe(NEUTRAL_MS);
    expect(lstatSync(join(dir, "src")).atimeMs).toBe(NEUTRAL_MS);
    utimesSync(join(dir, "src"), NEUTRAL_MS / 1000, 1_700_000_000);
    utimesSync(join(dir, "README.md"), 1_700_000_000, NEUTRAL_MS / 1000);
    const report = await checkLeakage({ dir, needles: [source.issueKey] });
    expect(summary(report)).toEqual(["timestamp README.md", "timestamp src"]);
  });

  it("catches a pack whose objects are not in the neutral order (the source's order names the fixed files)", async () => {
    const dir = await workspace();
    const packDir = join(dir, ".git/objects/pack");
    const [pack] = readdirSync(packDir).filter((name) => name.endsWith(".pack"));
    // Rewrites the same objects in reverse order: blobs first, the commit last.
    const objects = git(dir, "verify-pack", "-v", join(packDir, pack ?? ""))
      .split("\n")
      .map((line) => /^([0-9a-f]{40}) (\w+)/.exec(line))
      .filter((match) => match !== null);
    const writer = new PackWriter(1);
    for (const [, oid = "", type = ""] of objects.reverse())
      writer.add(
        oid,
        type as "blob",
        execFileSync("git", ["cat-file", type, oid], { cwd: dir, maxBuffer: 1 << 26 }),
      );
    for (const name of readdirSync(packDir)) rmSync(join(packDir, name), { force: true });
    await writer.write(packDir);
    const report = await check(dir);
    expect(summary(report)).toEqual([
      `pack-order .git/objects/pack/${readdirSync(packDir).find((name) => name.endsWith(".pack"))}`,
    ]);
  });
});
