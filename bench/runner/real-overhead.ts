/**
 * The harness's own time per attempt on real repositories, beside the floor measured in the
 * same run.
 *
 *   node --conditions=@distdebug/source --import tsx bench/runner/real-overhead.ts \
 *     --mirror <folder of mirrors> [--bug <catalog id>]... [--attempts 3] [--floor-rounds 3]
 *     [--rss-bug <catalog id, default the last --bug>] [--no-rss]
 *
 * Default incidents: zookeeper-2845, kafka-13104, ignite-25819 (the mirrors hold
 * `apache+zookeeper`, `apache+kafka`, `apache+ignite-3`, as `distdebug run --mirror` reads them).
 * Per incident, with a fresh cache (so attempt 1 builds the base workspace), `runBenchmark` runs
 * `--attempts` attempts one at a time with a no-op `command` agent (one `sh -c` in the sandbox
 * that writes an empty diagnosis); an attempt's time is the wall time from the previous
 * attempt's end (the run's start for attempt 1) to its own end: everything the harness does for
 * it. Then the floors, `--floor-rounds` times each (median):
 *
 * - warm floor (attempts 2+): `cp -a` of the cached base tree into a fresh size-capped tmpfs
 *   (the attempt's work folder is one, as root), plus one bare `bwrap` exec with the sandbox's
 *   mounts, the copy bound at /workspace, a task folder and /output, that writes the diagnosis;
 * - cold floor (attempt 1): the warm floor plus building the tree natively into the cache's
 *   file system (`git archive | tar -x`, `git init`, `git add -A`, `git commit`).
 *
 * Then, unless `--no-rss`, a run of `--attempts` attempts at concurrency 2 on `--rss-bug` (fresh
 * cache) in a child process under `/usr/bin/time`: its peak RSS (the largest of the harness
 * process and each program it ran) and wall time.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataset } from "@distdebug/dataset";
import { runBenchmark } from "@distdebug/runner";
import { mountDiskBudget } from "@distdebug/sandbox";
import { type Attempt, parseRunConfig } from "@distdebug/schema";
import { sameMountArgs } from "../sandbox/same-mounts.js";

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const every = (name: string) =>
  args.flatMap((arg, index) =>
    arg === name && args[index + 1] ? [args[index + 1] as string] : [],
  );
const mirrors = every("--mirror");
const bugs = every("--bug");
if (bugs.length === 0) bugs.push("zookeeper-2845", "kafka-13104", "ignite-25819");
const attempts = Number(option("--attempts") ?? 3) || 3;
const floorRounds = Number(option("--floor-rounds") ?? 3) || 3;
const rssBug = option("--rss-bug") ?? bugs.at(-1) ?? "ignite-25819";
const childBug = option("--rss-child");
if (mirrors.length === 0) {
  process.stderr.write("usage: real-overhead.ts --mirror <folder of mirrors> [--bug <id>]...\n");
  process.exit(2);
}

const root = new URL("../../", import.meta.url).pathname;
const dataset = await loadDataset(join(root, "datasets/catalog"));
const DIAGNOSIS = `printf '{"format":"distdebug.diagnosis/1","incidentId":"%s","blocks":[]}' "$DISTDEBUG_INCIDENT_ID" > /output/diagnosis.json`;
const config = parseRunConfig({
  name: "real-overhead",
  agent: { type: "command", command: ["/bin/sh", "-c", DIAGNOSIS], wallTimeLimitSec: 600 },
  run: { attempts },
});

/** One attempt's harness time and its phases, in ms. */
interface AttemptTime {
  attempt: number;
  ms: number;
  status: string;
  timings: Record<string, number>;
}

/** Runs the incident's attempts with a fresh cache; each attempt's time from the previous end. */
async function runIncident(
  id: string,
  work: string,
  concurrency: number,
): Promise<{ times: AttemptTime[]; cacheDir: string }> {
  const incident = dataset.incidents.find((entry) => entry.id === id);
  if (!incident) throw new Error(`${id}: not in datasets/catalog`);
  const cacheDir = join(work, `cache-${id}`);
  let last = performance.now();
  const ends = new Map<number, number>();
  const result = await runBenchmark({
    config,
    dataset,
    incidents: [incident],
    outDir: join(work, `results-${id}`),
    cacheDir,
    attempts,
    concurrency,
    mirrors: { dirs: mirrors },
    onEvent: (event) => {
      if (event.type !== "attempt-end") return;
      const now = performance.now();
      ends.set(event.attempt, now - last);
      last = now;
    },
  });
  const times = result.attempts.map((record: Attempt) => ({
    attempt: record.attempt,
    ms: ends.get(record.attempt) ?? Number.NaN,
    status: record.status,
    timings: record.timings,
  }));
  return { times, cacheDir };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

function timedRun(file: string, argv: string[], cwd?: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) =>
    execFile(file, argv, { maxBuffer: 1 << 26, ...(cwd ? { cwd } : {}) }, (error, _o, stderr) =>
      error
        ? reject(new Error(`${file} ${argv.join(" ")}: ${stderr}`))
        : resolve(performance.now() - t0),
    ),
  );
}

/** The one base tree of the fresh cache. */
async function baseTree(cacheDir: string): Promise<string> {
  const entries = (await readdir(join(cacheDir, "workspaces"))).filter(
    (name) => !name.includes(".") && !name.endsWith(".lock"),
  );
  if (entries.length !== 1) throw new Error(`expected one base in ${cacheDir}, found ${entries}`);
  return join(cacheDir, "workspaces", entries[0] as string, "tree");
}

/** `cp -a` of the base into a fresh tmpfs and one bare bwrap exec with the same mounts. */
async function warmFloor(base: string, work: string): Promise<{ copy: number; bwrap: number }> {
  const dir = await mkdtemp(join(work, "floor-"));
  const budget = await mountDiskBudget({ dir, bytes: 1024 * 1024 * 1024 });
  try {
    const copy = await timedRun("cp", [
      "-a",
      "--no-target-directory",
      base,
      join(dir, "workspace"),
    ]);
    await mkdir(join(dir, "task"));
    await writeFile(join(dir, "task", "task.json"), "{}");
    await mkdir(join(dir, "output"));
    const bwrapArgs = sameMountArgs(
      [
        { source: join(dir, "workspace"), target: "/workspace" },
        { source: join(dir, "task"), target: "/task", readOnly: true },
        { source: join(dir, "output"), target: "/output" },
      ],
      DIAGNOSIS.replace('"$DISTDEBUG_INCIDENT_ID"', "floor"),
    );
    const bwrap = await timedRun("bwrap", bwrapArgs);
    return { copy, bwrap };
  } finally {
    await budget.release();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Builds the commit's tree natively next to the cache: archive, init, add, commit. */
async function nativeBuild(gitdir: string, commit: string, work: string): Promise<number> {
  const dir = join(work, "native");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  const env = "GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x";
  const script = `git --git-dir="${gitdir}" archive ${commit} | tar -x -C "${dir}" && cd "${dir}" && git init -q && git -c gc.auto=0 add -A && ${env} git -c gc.auto=0 -c maintenance.auto=false commit -q -m w`;
  const ms = await timedRun("bash", ["-c", script]);
  await rm(dir, { recursive: true, force: true });
  return ms;
}

/** The mirror `distdebug run --mirror` would read for an incident. */
function mirrorOf(url: string): string {
  const match = /github\.com\/([^/]+)\/([^/]+?)(?:\.git)?$/.exec(url);
  for (const dir of mirrors) {
    const path = join(dir, `${match?.[1]}+${match?.[2]}`, "repo");
    try {
      execFileSync("git", ["--git-dir", path, "rev-parse", "--git-dir"], { stdio: "ignore" });
      return path;
    } catch {
      // Not in this folder.
    }
  }
  throw new Error(`no mirror of ${url} in ${mirrors.join(", ")}`);
}

interface Row {
  id: string;
  files: number;
  times: AttemptTime[];
  copy: number;
  bwrap: number;
  build: number;
}

async function measureIncident(id: string, work: string): Promise<Row> {
  const incident = dataset.incidents.find((entry) => entry.id === id);
  if (incident?.repository.kind !== "remote") throw new Error(`${id}: not a catalog incident`);
  process.stderr.write(`${id}: ${attempts} attempts, fresh cache ...\n`);
  const { times, cacheDir } = await runIncident(id, work, 1);
  for (const time of times)
    process.stderr.write(
      `  attempt ${time.attempt} ${time.status} ${time.ms.toFixed(0)} ms ${JSON.stringify(time.timings)}\n`,
    );
  const base = await baseTree(cacheDir);
  const floors = { copy: [] as number[], bwrap: [] as number[], build: [] as number[] };
  const gitdir = mirrorOf(incident.repository.url);
  for (let round = 0; round < floorRounds; round++) {
    const warm = await warmFloor(base, work);
    floors.copy.push(warm.copy);
    floors.bwrap.push(warm.bwrap);
    floors.build.push(await nativeBuild(gitdir, incident.repository.buggyCommit, cacheDir));
    process.stderr.write(
      `  floor round ${round + 1}: cp -a ${warm.copy.toFixed(0)} ms, bwrap ${warm.bwrap.toFixed(0)} ms, native build ${floors.build.at(-1)?.toFixed(0)} ms\n`,
    );
  }
  const files = Number(
    execFileSync("git", [
      "--git-dir",
      gitdir,
      "ls-tree",
      "-r",
      "--name-only",
      incident.repository.buggyCommit,
    ])
      .toString()
      .split("\n").length - 1,
  );
  await rm(cacheDir, { recursive: true, force: true });
  return {
    id,
    files,
    times,
    copy: median(floors.copy),
    bwrap: median(floors.bwrap),
    build: median(floors.build),
  };
}

/** The child of the RSS measurement: one run at concurrency 2, its own numbers on stdout. */
async function rssChild(id: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "distdebug-bench-rss-"));
  try {
    const t0 = performance.now();
    const { times } = await runIncident(id, work, 2);
    const self = process.resourceUsage().maxRSS / 1024;
    process.stdout.write(
      `${JSON.stringify({ wallMs: performance.now() - t0, selfMb: self, statuses: times.map((t) => t.status) })}\n`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Runs {@link rssChild} under /usr/bin/time: peak RSS over the process and what it ran. */
function measureRss(id: string): string {
  const child = spawnSync(
    "/usr/bin/time",
    [
      "-f",
      "%M",
      process.execPath,
      "--conditions=@distdebug/source",
      "--import",
      "tsx",
      new URL(import.meta.url).pathname,
      "--rss-child",
      id,
      "--attempts",
      String(attempts),
      ...mirrors.flatMap((dir) => ["--mirror", dir]),
    ],
    { cwd: root, encoding: "utf8", maxBuffer: 1 << 26 },
  );
  const peakKb = Number(child.stderr.trim().split("\n").at(-1));
  const own = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}") as {
    wallMs?: number;
    selfMb?: number;
    statuses?: string[];
  };
  if (child.status !== 0 || !own.wallMs) throw new Error(`the RSS run failed: ${child.stderr}`);
  return `peak RSS ${(peakKb / 1024).toFixed(0)} MB (harness process alone ${own.selfMb?.toFixed(0)} MB), wall ${fmt(own.wallMs)} ms, attempts ${own.statuses?.join(", ")}`;
}

const fmt = (ms: number) => `${Math.round(ms).toLocaleString("en-US")}`;

async function main(): Promise<void> {
  if (childBug) return rssChild(childBug);
  const work = await mkdtemp(join(tmpdir(), "distdebug-bench-overhead-"));
  const rows: Row[] = [];
  try {
    for (const id of bugs) rows.push(await measureIncident(id, work));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const load = loadavg().map((value) => value.toFixed(1));
  console.log(
    `\nharness time per attempt (no-op command agent), floor medians of ${floorRounds} rounds; load average ${load.join(" ")} on ${cpus().length} cores\n`,
  );
  console.log(
    "| incident | files | attempt | harness ms | workspace | leakage | sandbox | agent | scoring | floor ms | floor is | ratio | target |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    for (const time of row.times) {
      const cold = time.attempt === 1;
      const floor = row.copy + row.bwrap + (cold ? row.build : 0);
      const phase = (name: string) => fmt(time.timings[name] ?? 0);
      console.log(
        `| ${row.id} | ${row.files} | ${time.attempt}${time.status === "succeeded" ? "" : ` (${time.status})`} | ${fmt(time.ms)} | ${phase("workspace")} | ${phase("leakage")} | ${phase("sandbox")} | ${phase("agent")} | ${phase("scoring")} | ${fmt(floor)} | ${cold ? `build ${fmt(row.build)} + ` : ""}cp ${fmt(row.copy)} + bwrap ${fmt(row.bwrap)} | ${(time.ms / floor).toFixed(2)}x | ${cold ? "2x" : "1.5x"} |`,
      );
    }
  }
  if (!args.includes("--no-rss")) {
    process.stderr.write(
      `${rssBug}: ${attempts} attempts at concurrency 2 under /usr/bin/time ...\n`,
    );
    const child = measureRss(rssBug);
    console.log(`\n${rssBug}, ${attempts} attempts at concurrency 2, fresh cache: ${child}`);
  }
}

await main();
