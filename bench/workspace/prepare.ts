/**
 * Workspace preparation speed, side by side with the native floor and cp -a.
 *
 *   node --conditions=@distdebug/source --import tsx bench/workspace/prepare.ts [--large | --large-only] [--runs N]
 *
 * Builds synthetic repositories (1,200 files / ~18 MB and, with --large, 30,000 files /
 * ~300 MB, each with a few hundred commits) and prints, per repository: a cold prepare on the
 * git fast path and on pure isomorphic-git (no cache), a cold prepare that also fills the
 * base-workspace cache, the native floor (git archive | tar -x; git init; git add -A; git
 * commit), a warm prepare from the cache and cp -a of the base workspace.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { prepareWorkspace } from "@distdebug/workspace";
import { buildSyntheticRepo, run, type SyntheticRepoShape } from "./synthetic-repo.js";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] ?? 3) || 3;
const shapes: { name: string; shape: SyntheticRepoShape }[] = [];
if (!args.includes("--large-only"))
  shapes.push({
    name: "1,200 files / 18 MB",
    shape: { files: 1200, averageBytes: 15_000, commits: 300 },
  });
if (args.includes("--large") || args.includes("--large-only"))
  shapes.push({
    name: "30,000 files / 300 MB",
    shape: { files: 30_000, averageBytes: 10_000, commits: 300 },
  });

const root = join(tmpdir(), "distdebug-bench-workspace");
const needles = ["ISSUE-4242"];

interface Step {
  label: string;
  before?: (i: number) => Promise<void>;
  run: (i: number) => Promise<void>;
}

/** Runs every step once per round, interleaved, so load changes hit all steps alike; returns medians. */
async function measure(steps: Step[]): Promise<number[]> {
  const samples = steps.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [index, step] of steps.entries()) {
      await step.before?.(i);
      const t0 = performance.now();
      await step.run(i);
      const ms = performance.now() - t0;
      samples[index]?.push(ms);
      process.stderr.write(`    round ${i + 1}: ${step.label} ${ms.toFixed(0)} ms\n`);
    }
  }
  return samples.map((list, index) => {
    list.sort((a, b) => a - b);
    process.stderr.write(
      `  ${steps[index]?.label}: ${list.map((s) => s.toFixed(0)).join(", ")} ms\n`,
    );
    return list[Math.floor(list.length / 2)] ?? 0;
  });
}

const neutralEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "DistDebug",
  GIT_AUTHOR_EMAIL: "workspace@distdebug.invalid",
  GIT_COMMITTER_NAME: "DistDebug",
  GIT_COMMITTER_EMAIL: "workspace@distdebug.invalid",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00Z",
};

for (const { name, shape } of shapes) {
  const base = join(root, `${shape.files}`);
  const repo = join(base, "source.git");
  const marker = join(base, "commits.json");
  let commits: { buggy: string; fix: string };
  if (!existsSync(marker)) {
    await rm(base, { recursive: true, force: true });
    process.stderr.write(`building ${name} synthetic repository in ${base} ...\n`);
    commits = await buildSyntheticRepo(repo, shape);
    await writeFile(marker, JSON.stringify(commits));
  } else commits = JSON.parse(await readFile(marker, "utf8"));
  const size = (await run("du", ["-sh", repo])).split("\t")[0];
  process.stderr.write(`${name} (source repository ${size}), ${runs} rounds, median reported\n`);
  const out = (i: number, tag: string) => join(base, `out-${tag}-${i}`);
  const clean = (tag: string) => async (i: number) =>
    rm(out(i, tag), { recursive: true, force: true });
  const cache = join(base, "cache");
  await rm(cache, { recursive: true, force: true });

  // Fill the cache once so the warm steps can run in every round.
  const warmup = await prepareWorkspace({
    source: repo,
    commit: commits.buggy,
    dir: out(0, "warmup"),
    needles,
    cacheDir: cache,
  });
  await rm(out(0, "warmup"), { recursive: true, force: true });
  const baseDir = warmup.baseDir ?? "";
  const [
    archiveMs = 0,
    floorMs = 0,
    coldGitMs = 0,
    coldIsoMs = 0,
    coldCacheMs = 0,
    warmMs = 0,
    cpMs = 0,
  ] = await measure([
    {
      label: "git archive | tar -x",
      before: clean("native"),
      run: async (i) => {
        await mkdir(out(i, "native"));
        await run("sh", [
          "-c",
          `git --git-dir='${repo}' archive ${commits.buggy} | tar -x -C '${out(i, "native")}'`,
        ]);
      },
    },
    {
      label: "native floor (archive+init+add+commit)",
      before: clean("native"),
      run: async (i) => {
        const dir = out(i, "native");
        await mkdir(dir);
        await run("sh", [
          "-c",
          `git --git-dir='${repo}' archive ${commits.buggy} | tar -x -C '${dir}'`,
        ]);
        await run("git", ["init", "-q", "-b", "main", dir]);
        await run("git", ["add", "-A"], { cwd: dir });
        await run("git", ["commit", "-q", "-m", "Workspace at the revision under investigation"], {
          cwd: dir,
          env: neutralEnv,
        });
      },
    },
    {
      label: "cold prepare, git path, no cache",
      before: clean("cold-git"),
      run: async (i) => {
        await prepareWorkspace({
          source: repo,
          commit: commits.buggy,
          dir: out(i, "cold-git"),
          needles,
          cacheDir: false,
          engine: "git",
        });
      },
    },
    {
      label: "cold prepare, isomorphic-git, no cache",
      before: clean("cold-iso"),
      run: async (i) => {
        await prepareWorkspace({
          source: repo,
          commit: commits.buggy,
          dir: out(i, "cold-iso"),
          needles,
          cacheDir: false,
          engine: "isomorphic-git",
        });
      },
    },
    {
      label: "cold prepare filling an empty cache (git path)",
      before: async (i) => {
        await clean("cold-cache")(i);
        await rm(join(base, "cache-cold"), { recursive: true, force: true });
      },
      run: async (i) => {
        await prepareWorkspace({
          source: repo,
          commit: commits.buggy,
          dir: out(i, "cold-cache"),
          needles,
          cacheDir: join(base, "cache-cold"),
          engine: "git",
        });
      },
    },
    {
      label: "warm prepare (cache hit)",
      before: clean("warm"),
      run: async (i) => {
        const result = await prepareWorkspace({
          source: repo,
          commit: commits.buggy,
          dir: out(i, "warm"),
          needles,
          cacheDir: cache,
        });
        if (!result.cacheHit) throw new Error("expected a cache hit");
      },
    },
    {
      label: "cp -a of the base workspace",
      before: clean("cp"),
      run: async (i) => {
        await run("cp", ["-a", baseDir, out(i, "cp")]);
      },
    },
  ]);
  for (let i = 0; i < runs; i++)
    for (const tag of ["native", "cold-git", "cold-iso", "cold-cache", "warm", "cp", "warmup"])
      await rm(out(i, tag), { recursive: true, force: true });

  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const rows: [string, number, string][] = [
    ["git archive | tar -x", archiveMs, ""],
    ["native floor: archive + init + add -A + commit", floorMs, "1.00x floor"],
    [
      "cold prepare, git fast path (no cache)",
      coldGitMs,
      `${ratio(coldGitMs, floorMs)} floor (target <= 1.5x)`,
    ],
    [
      "cold prepare, pure isomorphic-git (no cache)",
      coldIsoMs,
      `${ratio(coldIsoMs, floorMs)} floor (target <= 4x)`,
    ],
    [
      "cold prepare + fill base cache (git path)",
      coldCacheMs,
      `${ratio(coldCacheMs, floorMs)} floor`,
    ],
    ["cp -a of the base workspace", cpMs, "1.00x cp -a"],
    ["warm prepare (base cache hit)", warmMs, `${ratio(warmMs, cpMs)} cp -a (target <= 1.5x)`],
  ];
  process.stdout.write(
    `\n${name}, ${shape.commits} commits of history; median of ${runs} interleaved rounds; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${cpus().length} cores\n`,
  );
  for (const [label, ms, note] of rows)
    process.stdout.write(`  ${label.padEnd(50)} ${ms.toFixed(0).padStart(7)} ms  ${note}\n`);
}
