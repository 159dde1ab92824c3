import { mkdir, readdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { parseAttempt, parseDiagnosisScores } from "@distdebug/schema";
import { gitdir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

const BUGGY = "package raft\n\nfunc (r *raft) step(m Message) {\n\tr.apply(m)\n}\n";
const FIXED = BUGGY.replace("\tr.apply(m)", "\tif m.Index <= r.committed {\n\t\tr.apply(m)\n\t}");

let repo: { dir: string; commits: string[] };
let dataset: string;

beforeAll(async () => {
  repo = await gitdir({
    commits: [
      { files: { "raft/raft.go": BUGGY, "README.md": "raft\n" }, message: "import" },
      { files: { "raft/raft.go": FIXED }, message: "RAFT-7: apply only committed entries" },
    ],
  });
  const [buggy, fix] = repo.commits as [string, string];
  dataset = await testdir({
    "dataset.json": JSON.stringify({
      format: "distdebug.dataset/1",
      name: "remote",
      version: "1",
      incidents: ["raft-7"],
    }),
    "raft-7/incident.json": JSON.stringify({
      format: "distdebug.incident/1",
      id: "raft-7",
      title: "Followers apply entries that are not committed",
      system: "raft",
      languages: ["go"],
      // A remote repository no test may reach: only the mirror can provide it.
      repository: { url: "https://github.com/example/raft", buggyCommit: buggy },
      category: "logic",
      clues: { reportNamesCausalMethod: false, usableStackTrace: false },
      report: "report.md",
      artifacts: [],
      provenance: {
        issue: "RAFT-7",
        fixCommits: [fix],
        repository: "example/raft",
        text: "report written for this catalog",
      },
    }),
    "raft-7/report.md": "Followers apply entries before the leader commits them (step).\n",
    "raft-7/gold.json": JSON.stringify({
      format: "distdebug.gold/1",
      incidentId: "raft-7",
      blocks: [{ path: "raft/raft.go", startLine: 4, endLine: 4 }],
      fix: { commit: fix },
      needles: ["RAFT-7"],
    }),
  });
});

async function cli(args: string[], cwd?: string) {
  const work = cwd ?? (await testdir());
  const io = captureIO({ cwd: work, env: { HOME: work } });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err(), work };
}

describe("run --mirror", () => {
  it.each([
    ["owner/name=<gitdir>", (dir: string) => `example/raft=${dir}`],
    ["a folder of mirrors", (dir: string) => dir],
  ])(
    "reads a remote repository from a local mirror (%s), then score and verify rescore from it",
    async (kind, mirrorArg) => {
      const mirrors = await testdir();
      await mkdir(join(mirrors, "x"));
      await symlink(repo.dir, join(mirrors, "example+raft"));
      const mirror = mirrorArg(kind.startsWith("owner") ? repo.dir : mirrors);
      const cache = await testdir();
      const args = ["--dataset", dataset, "--mirror", mirror, "--cache-dir", cache];
      const run = await cli(["run", ...args, "--runs", "1", "--out", "results"]);
      expect(run.code, run.err).toBe(0);
      const attempt = parseAttempt(
        await readFile(join(run.work, "results/raft-7/attempt-1/attempt.json"), "utf8"),
      );
      expect(attempt.status).toBe("succeeded");
      const scores = parseDiagnosisScores(
        await readFile(join(run.work, "results/raft-7/attempt-1/diagnosis_scores.json")),
      );
      expect(scores.metrics.blockCoverage).toBeTypeOf("number");
      const score = await cli(["score", "results", ...args], run.work);
      expect(score.code, score.err).toBe(0);
      // verify rescores from the mirror too, with a fresh cache (no clone to fall back on).
      const pack = await cli(["package", "results", "--out", "s.tar.gz"], run.work);
      expect(pack.code, pack.err).toBe(0);
      for (const countCache of [[], ["--no-count-cache"]]) {
        const fresh = await testdir();
        const verify = await cli(
          ["verify", "s.tar.gz", "--mirror", mirror, "--cache-dir", fresh, ...countCache],
          run.work,
        );
        expect(verify.code, verify.err + verify.out).toBe(0);
        expect(verify.out).toContain("rescoring reproduces every score");
        // Nothing cloned; with --no-count-cache no row count kept either (with it, the counts
        // this process holds already may leave nothing to write).
        const kept = await readdir(fresh);
        expect(kept).not.toContain("repos");
        if (countCache.length > 0) expect(kept).not.toContain("row-counts");
      }
      // The report shows the buggy code beside the gold, read from the mirror too.
      const report = await cli(
        ["report", "results", ...args, "--out", "rep", "--format", "none"],
        run.work,
      );
      expect(report.code, report.err).toBe(0);
      expect(report.err).not.toMatch(/source code not shown/);
      const pages = (await readdir(join(run.work, "rep/attempts"), { recursive: true })).filter(
        (path) => path.endsWith("raft-7/attempt-1.html"),
      );
      expect(pages).toHaveLength(1);
      const page = await readFile(join(run.work, "rep/attempts", pages[0]!), "utf8");
      expect(page).toContain("r.apply(m)");
    },
    180_000,
  );
});

describe("bundled datasets by name, and incident ids", () => {
  it("dataset list, show and stats name the bundled catalog and example outside the repository", async () => {
    const list = await cli(["dataset", "list", "catalog", "--id", "zookeeper-*"]);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toContain("zookeeper-2845");
    const show = await cli(["dataset", "show", "example", "leasekv-77"]);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toContain("leasekv-77");
    const stats = await cli(["dataset", "stats", "catalog"]);
    expect(stats.code, stats.err).toBe(0);
  });

  it("a folder of that name in the working folder comes first", async () => {
    const work = await testdir();
    await symlink(join(repoRoot, "examples/dataset"), join(work, "catalog"));
    const list = await cli(["dataset", "list", "catalog"], work);
    expect(list.out).toContain("leasekv-77");
    expect(list.out).not.toContain("zookeeper-2845");
  });

  it("an unknown incident id gets a did-you-mean, with and without --dataset (exit 2)", async () => {
    const bundled = await cli(["run", "--bug", "zookeper-2845", "--out", "results"]);
    expect(bundled.code).toBe(2);
    expect(bundled.err).toContain("zookeper-2845 (did you mean zookeeper-2845?)");
    const named = await cli([
      "run",
      "--dataset",
      "example",
      "--bug",
      "zklite-14",
      "--bug",
      "leasekv-77",
    ]);
    expect(named.code).toBe(2);
    expect(named.err, named.err).toContain("matches zklite-14 (did you mean zklite-142?)");
    expect(named.err).not.toContain("leasekv-77");
  });
});
