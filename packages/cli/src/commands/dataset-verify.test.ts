import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mountDiskBudget } from "@distdebug/sandbox";
import { gitdir, testdir } from "@distdebug/test-utils";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

// A real repository: a buggy revision and its fix, then a later commit.
const BUGGY = [
  "package raft",
  "",
  "func (r *raft) step(m Message) {",
  "\tif m.Term < r.Term {",
  "\t\treturn",
  "\t}",
  "\tr.apply(m)",
  "}",
  "",
  "func (r *raft) tick() {",
  '\tlog.Printf("tick %d: election timeout elapsed", r.elapsed)',
  "\tr.elapsed++",
  "}",
  "",
].join("\n");
const FIXED = BUGGY.replace(
  "\tr.apply(m)",
  "\tif m.Index > r.committedIndexForCatalog {\n\t\tr.apply(m)\n\t}",
);

let repo: { dir: string; commits: string[] };
let cacheDir: string;

beforeAll(async () => {
  repo = await gitdir({
    commits: [
      { files: { "raft/raft.go": BUGGY, "README.md": "raft\n" }, message: "import" },
      { files: { "raft/raft.go": FIXED }, message: "RAFT-7: apply only committed entries" },
      { files: { "README.md": "raft, fixed RAFT-7\n" }, message: "notes" },
    ],
  });
  cacheDir = await testdir();
});

type Block = { path: string; startLine: number; endLine: number; note?: string };
type ArtifactFile = { path: string; kind: "log" | "stack-trace" | "other"; text: string };

async function catalog(
  options: {
    buggy?: string;
    blocks?: Block[];
    needles?: string[];
    commits?: string[];
    artifacts?: ArtifactFile[];
  } = {},
) {
  const [buggy, fix] = (options.commits ?? repo.commits) as [string, string];
  const incident = {
    format: "distdebug.incident/1",
    id: "raft-7",
    title: "Followers apply entries that are not committed",
    system: "raft",
    languages: ["go"],
    repository: { url: "https://github.com/example/raft", buggyCommit: options.buggy ?? buggy },
    category: "logic",
    clues: { reportNamesCausalMethod: false, usableStackTrace: false },
    report: "report.md",
    artifacts: (options.artifacts ?? []).map(({ path, kind }) => ({ path, kind })),
    provenance: {
      issue: "RAFT-7",
      fixCommits: [fix],
      repository: "example/raft",
      text: "report written for this catalog",
    },
  };
  const gold = {
    format: "distdebug.gold/1",
    incidentId: "raft-7",
    blocks: options.blocks ?? [
      { path: "raft/raft.go", startLine: 7, endLine: 7, note: "applies without checking" },
    ],
    fix: { commit: fix },
    needles: options.needles ?? ["RAFT-7", "r.committedIndexForCatalog"],
  };
  return testdir({
    "dataset.json": JSON.stringify({
      format: "distdebug.dataset/1",
      name: "t",
      version: "1",
      incidents: ["raft-7"],
      requireGold: false,
    }),
    "raft-7/incident.json": JSON.stringify(incident),
    "raft-7/report.md": "Followers sometimes apply entries before the leader commits them.\n",
    "raft-7/gold.json": JSON.stringify(gold),
    ...Object.fromEntries(
      (options.artifacts ?? []).map((artifact) => [`raft-7/${artifact.path}`, artifact.text]),
    ),
  });
}

async function verify(dir: string, mirror = repo.dir, extra: string[] = []) {
  const io = captureIO();
  const code = await runCli(
    [
      "dataset",
      "verify",
      dir,
      "--mirror",
      `example/raft=${mirror}`,
      "--cache-dir",
      cacheDir,
      "--json",
      ...extra,
    ],
    io,
  );
  const { results } = JSON.parse(io.out());
  return { code, result: results[0], results };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("distdebug dataset verify", () => {
  it("passes an incident whose commits, blocks and needles agree with the repository", async () => {
    const { code, result } = await verify(await catalog());
    expect(result).toMatchObject({ id: "raft-7", ok: true, problems: [], notes: [] });
    expect(code).toBe(0);
  });

  it("builds each workspace in a scratch folder it removes: no base workspace is cached, nothing is left mounted", async () => {
    // Before, each incident's base (a whole tree per needle set) stayed in the default cache.
    const defaultCache = await testdir();
    vi.stubEnv("DISTDEBUG_CACHE_DIR", defaultCache);
    const { code, result } = await verify(await catalog());
    expect([code, result.ok]).toEqual([0, true]);
    expect(await readdir(defaultCache)).not.toContain("workspaces");
    expect(await readdir(cacheDir)).not.toContain("workspaces");
    expect(await readdir(join(cacheDir, "tmp"))).toEqual([]);
    const mounts = await readFile("/proc/self/mountinfo", "utf8");
    expect(mounts.split("\n").filter((line) => line.includes(cacheDir))).toEqual([]);
  });

  it("unmounts and removes the scratch folder a killed verify left behind, and keeps a live one's", async () => {
    // pid 2^22 + 1 is above Linux's pid_max default: a dead process. This one is alive.
    const dead = join(cacheDir, "tmp", "verify-p4194305-AbC123");
    const live = join(cacheDir, "tmp", `verify-p${process.pid}-XyZ789`);
    await mkdir(dead, { recursive: true });
    await mkdir(live, { recursive: true });
    // As root the killed verify's scratch was a tmpfs: mount one as it would have.
    const budget = await mountDiskBudget({ dir: dead, bytes: 8 * 1024 * 1024 });
    await writeFile(join(dead, "left-behind"), "x");
    const mounted = () =>
      readFile("/proc/self/mountinfo", "utf8").then((text) =>
        text.split("\n").filter((line) => line.includes(dead)),
      );
    if (process.getuid?.() === 0) expect(budget.enforcement).toBe("tmpfs");
    if (budget.enforcement === "tmpfs") expect(await mounted()).toHaveLength(1);
    try {
      const { code } = await verify(await catalog());
      expect(code).toBe(0);
      expect(await readdir(join(cacheDir, "tmp"))).toEqual([`verify-p${process.pid}-XyZ789`]);
      expect(await mounted()).toEqual([]);
    } finally {
      await budget.release();
      await rm(live, { recursive: true, force: true });
    }
  });

  it("passes artifacts whose log lines and frames the buggy revision can produce", async () => {
    const text = [
      "2024/01/02 10:00:00 tick 3: election timeout elapsed",
      "panic: runtime error",
      "",
      "goroutine 7 [running]:",
      "example/raft.(*raft).step(0xc000010000, {0x1, 0x2})",
      "\t/build/raft/raft.go:7 +0x1f",
      "example/raft.(*raft).tick(...)",
      "\t/build/raft/raft.go:12",
      "runtime.goexit()",
      "\t/usr/local/go/src/runtime/asm_amd64.s:1650 +0x1",
    ].join("\n");
    const dir = await catalog({ artifacts: [{ path: "logs/node.log", kind: "log", text }] });
    const { code, result } = await verify(dir);
    expect(result.problems).toEqual([]);
    expect(result.notes.join("\n")).toMatch(/2 frame\(s\) and 1 log line\(s\) checked/);
    expect(code).toBe(0);
  });

  it("fails on a log line no statement prints and on frames the revision does not have", async () => {
    const text = [
      "2024/01/02 10:00:00 tick 3: election timeout elapsed",
      "2024/01/02 10:00:01 leader lease expired for term 4",
      "example/raft.(*raft).step(0xc000010000)",
      "\t/build/raft/raft.go:99 +0x1f",
      "example/raft.(*raft).propose(0xc000010000)",
      "\t/build/raft/raft.go:7 +0x1f",
    ].join("\n");
    const dir = await catalog({ artifacts: [{ path: "logs/node.log", kind: "log", text }] });
    const { code, result } = await verify(dir);
    expect(code).toBe(1);
    const problems = result.problems.join("\n");
    expect(problems).toMatch(
      /logs\/node\.log:2: no string literal .* "leader lease expired for term 4"/,
    );
    expect(problems).toMatch(/logs\/node\.log:4: frame .*line 99 is past the file's \d+ lines/);
    expect(problems).toMatch(/logs\/node\.log:6: frame .*no propose at or before line 7/);
    expect(result.problems).toHaveLength(3);
  });

  it("verifies several incidents at once and lists them in the dataset's order", async () => {
    const dir = await catalog();
    // A second incident: the same bug under another id, whose buggy commit is wrong.
    const first = JSON.parse(await readFile(join(dir, "raft-7/incident.json"), "utf8"));
    await mkdir(join(dir, "raft-10"));
    await writeFile(
      join(dir, "raft-10/incident.json"),
      JSON.stringify({
        ...first,
        id: "raft-10",
        repository: { ...first.repository, buggyCommit: repo.commits[1] },
      }),
    );
    await writeFile(join(dir, "raft-10/report.md"), await readFile(join(dir, "raft-7/report.md")));
    const gold = JSON.parse(await readFile(join(dir, "raft-7/gold.json"), "utf8"));
    await writeFile(
      join(dir, "raft-10/gold.json"),
      JSON.stringify({ ...gold, incidentId: "raft-10" }),
    );
    const dataset = JSON.parse(await readFile(join(dir, "dataset.json"), "utf8"));
    await writeFile(
      join(dir, "dataset.json"),
      JSON.stringify({ ...dataset, incidents: ["raft-7", "raft-10"] }),
    );
    const { code, results } = await verify(dir, repo.dir, ["--concurrency", "2"]);
    expect(results.map((result: { id: string; ok: boolean }) => [result.id, result.ok])).toEqual([
      ["raft-7", true],
      ["raft-10", false],
    ]);
    expect(code).toBe(1);
  });

  it("fails when the buggy commit is not the fix's parent", async () => {
    const { code, result } = await verify(await catalog({ buggy: repo.commits[2]! }));
    expect(code).toBe(1);
    expect(result.problems.join("\n")).toMatch(/expected exactly the buggy commit/);
  });

  it("fails a block past the end of its file, and one far from the fix without a note", async () => {
    const blocks = [
      { path: "raft/raft.go", startLine: 12, endLine: 40, note: "x" },
      { path: "raft/raft.go", startLine: 3, endLine: 3 },
    ];
    const { result } = await verify(await catalog({ blocks }));
    expect(result.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/12-40 ends past the file's 13 lines/),
        expect.stringMatching(/3-3 is not touched by or adjacent to the fix and has no note/),
      ]),
    );
  });

  it("lists a block away from the fix as a note when its note says why", async () => {
    const blocks = [
      { path: "raft/raft.go", startLine: 7, endLine: 7, note: "applies without checking" },
      { path: "raft/raft.go", startLine: 11, endLine: 11, note: "tick advances without a bound" },
    ];
    const { code, result } = await verify(await catalog({ blocks }));
    expect(code).toBe(0);
    expect(result.notes).toEqual([expect.stringMatching(/11-11 is not touched.*tick advances/)]);
  });

  it("fails a needle that already occurs at the buggy revision (not distinctive)", async () => {
    const { result } = await verify(await catalog({ needles: ["RAFT-7", "r.apply(m)"] }));
    expect(result.ok).toBe(false);
    expect(result.problems.join("\n")).toMatch(
      /needle "r\.apply\(m\)" occurs at the buggy revision/,
    );
  });
});

describe("the catalog", () => {
  it("passes dataset check (every incident's files and rules that need no repository)", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "check", join("datasets", "catalog")], io)).toBe(0);
  });

  it("passes with a note naming them when the mirror lacks blobs outside the gold files (a snapshot without large files)", async () => {
    const line = "\tif m.Index > r.committedIndexForCatalog {";
    const snapshot = await gitdir({
      commits: [
        {
          files: {
            "raft/raft.go": BUGGY,
            // The fix's added line already occurs here: the leakage check must read the buggy tree to confirm.
            "docs/design.md": `Apply rule:\n${line}\n`,
            "testdata/wal-0001.bin": "a large write-ahead log\n",
          },
          message: "import",
        },
        { files: { "raft/raft.go": FIXED }, message: "RAFT-7: apply only committed entries" },
      ],
    });
    const blob = execFileSync(
      "git",
      ["rev-parse", `${snapshot.commits[0]}:testdata/wal-0001.bin`],
      {
        cwd: snapshot.dir,
        encoding: "utf8",
      },
    ).trim();
    await rm(join(snapshot.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const dir = await catalog({ commits: snapshot.commits, needles: ["RAFT-7"] });
    const { code, result } = await verify(dir, snapshot.dir);
    expect(result.problems).toEqual([]);
    expect(result.notes).toEqual([
      expect.stringMatching(
        /lacks 1 blob\(s\) of the buggy revision \(testdata\/wal-0001\.bin\).*not scanned/,
      ),
    ]);
    expect(code).toBe(0);
  });
});
