/**
 * Rescoring and verifying a catalog submission through the real CLI, beside the floor measured
 * in the same run.
 *
 *   node --conditions=@distdebug/source --import tsx bench/submission/rescore.ts \
 *     --results <results folder of a catalog run> --mirror <folder of mirrors | owner/name=gitdir>...
 *     [--dataset <dir>, default the one run.json names] [--start-rounds 3]
 *
 * The results folder is copied (`cp -a`) into a temporary folder first and never written; with
 * `--dataset`, the copy's run.json names that dataset (for a run whose dataset folder moved). Each
 * step runs the CLI (`packages/cli/src/bin.ts`, as `pnpm distdebug` does) as a child process
 * under `/usr/bin/time` (wall time measured here, peak RSS from `time -f %M`: the largest of the
 * child and what it ran); the CLI's own start (`distdebug --help`, median of `--start-rounds`)
 * is subtracted from each step before its ratio:
 *
 * - `score --rescore --mirror ... --cache-dir <fresh>` twice: every attempt scored again from the
 *   object store, first with an empty row-count cache (R counted from every distinct source
 *   blob), then with the counts the first run kept in `<cache-dir>/row-counts`;
 * - `score --mirror ...`: every diagnosis_scores.json reused;
 * - `package`, then `verify --mirror ...` of the archive twice with another fresh `--cache-dir`
 *   (cold, then warm row counts).
 *
 * The floor, in a child process of this script under `/usr/bin/time` (its time measured inside
 * it, so without a start): for every scored attempt's incident, the blobs of the files its
 * diagnosis and gold blocks name, read at the buggy revision with one `git cat-file --batch` per
 * incident against its mirror, and each distinct file parsed once with tree-sitter (the
 * evaluator's runtime and grammars, loaded the way it loads them). Beside it, not part of it,
 * the floor of a cold count of the repository size R: every distinct source blob of the scored
 * incidents' buggy trees read once (one `git cat-file --batch` per repository) with its
 * non-blank lines counted; what a cold rescoring adds to the floor at least (printed as its
 * own ratio). Target: every rescoring step at most 1.5x the floor and under 60 s. `package` refuses incidents with infra errors, so the
 * archive holds the incidents whose attempts all finished.
 */
import { spawn } from "node:child_process";
import { access, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type DatasetIncident, loadDataset, loadGold } from "@distdebug/dataset";
import { DEFAULT_LANGUAGES, languageOf } from "@distdebug/evaluator";
import { findMirror, type MirrorOptions } from "@distdebug/runner";

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const every = (name: string) =>
  args.flatMap((arg, index) =>
    arg === name && args[index + 1] ? [args[index + 1] as string] : [],
  );
const resultsArg = option("--results");
const mirrorArgs = every("--mirror");
const startRounds = Number(option("--start-rounds") ?? 3) || 3;
const floorChild = option("--floor-child");
if (!resultsArg || mirrorArgs.length === 0) {
  process.stderr.write(
    "usage: rescore.ts --results <results folder> --mirror <folder | owner/name=gitdir>... [--dataset dir]\n",
  );
  process.exit(2);
}

const root = new URL("../../", import.meta.url).pathname;
const bin = join(root, "packages/cli/src/bin.ts");
const tsx = join(root, "node_modules/tsx/dist/loader.mjs");

/** The `--mirror` arguments as the CLI reads them: `owner/name=<gitdir>` mappings and folders. */
function mirrorOptions(values: readonly string[]): MirrorOptions {
  const dirs: string[] = [];
  const map: Record<string, string> = {};
  for (const value of values) {
    const mapping = /^([^=/]+\/[^=/]+)=(.+)$/.exec(value);
    if (mapping) map[mapping[1] as string] = resolve(mapping[2] as string);
    else dirs.push(resolve(value));
  }
  return { dirs, map };
}
const mirrors = mirrorOptions(mirrorArgs);

/** The dataset the run scored against: `--dataset`, else the one run.json names. */
async function datasetDir(results: string): Promise<string> {
  const given = option("--dataset");
  if (given) return resolve(given);
  const run = JSON.parse(await readFile(join(results, "run.json"), "utf8")) as {
    dataset: { path?: string };
  };
  if (!run.dataset.path) throw new Error(`${results}/run.json names no dataset path`);
  return run.dataset.path;
}

/** With `--dataset`, the copy's run.json names it (score, package and verify then load it). */
async function pointAtDataset(results: string): Promise<void> {
  const given = option("--dataset");
  if (!given) return;
  const path = join(results, "run.json");
  const run = JSON.parse(await readFile(path, "utf8")) as { dataset: { path?: string } };
  run.dataset.path = resolve(given);
  await writeFile(path, `${JSON.stringify(run, null, 2)}\n`);
}

/** One measured child: wall ms (from here), peak RSS in MB (`/usr/bin/time -f %M`), output. */
interface Measured {
  ms: number;
  rssMb: number;
  stdout: string;
  exitCode: number;
}

function measure(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<Measured> {
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "%M", ...argv], { cwd: root, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      const lines = stderr.trim().split("\n");
      const rssKb = Number(lines.at(-1));
      if (code !== 0) process.stderr.write(`${argv.slice(4).join(" ")} exited ${code}:\n${stderr}`);
      resolvePromise({ ms, rssMb: rssKb / 1024, stdout, exitCode: code ?? -1 });
    });
  });
}

const cli = (argv: string[], env?: NodeJS.ProcessEnv) =>
  measure([process.execPath, "--conditions=@distdebug/source", "--import", tsx, bin, ...argv], env);

/**
 * Removes the incidents with an attempt that did not finish (`infra-error`, `interrupted`: the
 * ones the mirrors could not prepare), which `package` refuses; returns their ids.
 */
async function dropUnfinished(results: string): Promise<string[]> {
  const dropped: string[] = [];
  for (const entry of await readdir(results, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(results, entry.name);
    const attempts = (await readdir(dir)).filter((name) => name.startsWith("attempt-"));
    const statuses = await Promise.all(
      attempts.map(async (name) => {
        const text = await readFile(join(dir, name, "attempt.json"), "utf8").catch(() => "{}");
        return (JSON.parse(text) as { status?: string }).status;
      }),
    );
    if (attempts.length > 0 && statuses.every((status) => status && !UNFINISHED.has(status)))
      continue;
    dropped.push(entry.name);
    await rm(dir, { recursive: true, force: true });
  }
  return dropped;
}
const UNFINISHED = new Set(["infra-error", "interrupted"]);

/** The blocks' paths of one attempt's diagnosis (none when it has no valid diagnosis). */
async function diagnosisPaths(dir: string): Promise<string[]> {
  try {
    const diagnosis = JSON.parse(await readFile(join(dir, "diagnosis.json"), "utf8")) as {
      blocks?: { path?: unknown }[];
    };
    return (diagnosis.blocks ?? []).flatMap((block) =>
      typeof block.path === "string" ? [block.path] : [],
    );
  } catch {
    return [];
  }
}

/** Per scored incident, the distinct files its scored attempts' diagnoses and its gold touch. */
async function touchedFiles(
  results: string,
  incidents: readonly DatasetIncident[],
): Promise<{ incident: DatasetIncident; paths: Set<string> }[]> {
  const present = new Set(await readdir(results));
  const out: { incident: DatasetIncident; paths: Set<string> }[] = [];
  for (const incident of incidents) {
    if (!present.has(incident.id)) continue;
    const paths = new Set<string>();
    let scored = 0;
    for (const entry of await readdir(join(results, incident.id))) {
      const dir = join(results, incident.id, entry);
      const exists = await access(join(dir, "diagnosis_scores.json")).then(
        () => true,
        () => false,
      );
      if (!entry.startsWith("attempt-") || !exists) continue;
      scored += 1;
      for (const path of await diagnosisPaths(dir)) paths.add(path.replace(/^\/+/, ""));
    }
    const gold = scored > 0 ? await loadGold(incident) : undefined;
    if (!gold) continue;
    for (const block of gold.blocks) paths.add(block.path);
    out.push({ incident, paths });
  }
  return out;
}

/**
 * Reads `<commit>:<path>` blobs (or bare object ids, with `commit` empty) through one
 * `git cat-file --batch`; missing paths are skipped.
 */
function readBlobs(gitdir: string, commit: string, paths: readonly string[]): Promise<Buffer[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("git", ["--git-dir", gitdir, "cat-file", "--batch"]);
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolvePromise(splitBatch(Buffer.concat(chunks))));
    child.stdin.end(paths.map((path) => (commit ? `${commit}:${path}\n` : `${path}\n`)).join(""));
  });
}

/** The blob contents of a `cat-file --batch` output (`<sha> blob <size>\n<bytes>\n` records). */
function splitBatch(output: Buffer): Buffer[] {
  const blobs: Buffer[] = [];
  let at = 0;
  while (at < output.length) {
    const eol = output.indexOf(10, at);
    if (eol < 0) break;
    const header = output.subarray(at, eol).toString().split(" ");
    at = eol + 1;
    if (header[1] !== "blob") continue;
    const size = Number(header[2]);
    blobs.push(output.subarray(at, at + size));
    at += size + 1;
  }
  return blobs;
}

/** The evaluator's tree-sitter runtime and grammars, required from its own package. */
function evaluatorParser(): (path: string, text: string) => void {
  const require = createRequire(join(root, "packages/evaluator/package.json"));
  const Parser = require("tree-sitter-runtime") as new () => {
    setLanguage(language: unknown): void;
    parse(input: string | ((index: number) => string)): unknown;
  };
  const parsers = new Map<string, InstanceType<typeof Parser>>();
  return (path, text) => {
    const language = languageOf(path, DEFAULT_LANGUAGES);
    if (language === "text") return;
    let parser = parsers.get(language);
    if (!parser) {
      parser = new Parser();
      // Each language's grammar is the npm package `tree-sitter-<language>`, as the evaluator's.
      parser.setLanguage(require(`tree-sitter-${language}`));
      parsers.set(language, parser);
    }
    // Long files: node-tree-sitter takes a callback for input past its string buffer.
    parser.parse((index) => text.slice(index, index + 16_384));
  };
}

/** The floor, measured inside this (child) process; prints its numbers as JSON. */
async function runFloor(results: string): Promise<void> {
  const dataset = await loadDataset(await datasetDir(results));
  const touched = await touchedFiles(results, dataset.incidents);
  const t0 = performance.now();
  const parse = evaluatorParser();
  let files = 0;
  let bytes = 0;
  for (const { incident, paths } of touched) {
    if (incident.repository.kind !== "remote") continue;
    const gitdir = await findMirror(incident.repository.url, mirrors);
    if (!gitdir) throw new Error(`${incident.id}: no mirror of ${incident.repository.url}`);
    const blobs = await readBlobs(gitdir, incident.repository.buggyCommit, [...paths].sort());
    const sorted = [...paths].sort();
    blobs.forEach((blob, index) => {
      files += 1;
      bytes += blob.length;
      parse(sorted[index] ?? "", blob.toString("utf8"));
    });
  }
  const ms = performance.now() - t0;
  const size = await sizeFloor(touched.map((entry) => entry.incident));
  process.stdout.write(
    `${JSON.stringify({ ms, incidents: touched.length, files, bytes, size })}\n`,
  );
}

/**
 * What a cold count of the repository size R costs at least: every distinct source blob of the
 * incidents' buggy trees (blob ids from `git ls-tree`, deduplicated per repository) read once
 * through one `git cat-file --batch` per repository, with its non-blank lines counted.
 */
async function sizeFloor(
  incidents: readonly DatasetIncident[],
): Promise<{ ms: number; files: number; bytes: number; trees: number }> {
  const t0 = performance.now();
  const byMirror = new Map<string, Set<string>>();
  let trees = 0;
  for (const incident of incidents) {
    if (incident.repository.kind !== "remote") continue;
    const gitdir = await findMirror(incident.repository.url, mirrors);
    if (!gitdir) continue;
    const oids = byMirror.get(gitdir) ?? new Set<string>();
    byMirror.set(gitdir, oids);
    const listing = await gitOutput([
      "--git-dir",
      gitdir,
      "ls-tree",
      "-r",
      incident.repository.buggyCommit,
    ]);
    for (const line of listing.toString("utf8").split("\n")) {
      const [meta, path] = line.split("\t");
      const [mode, type, oid] = (meta ?? "").split(" ");
      const source = path && languageOf(path, DEFAULT_LANGUAGES) !== "text";
      if (type === "blob" && mode !== "120000" && source && oid) {
        oids.add(oid);
        trees += 1;
      }
    }
  }
  let files = 0;
  let bytes = 0;
  for (const [gitdir, oids] of byMirror)
    for (const blob of await readBlobs(gitdir, "", [...oids])) {
      files += 1;
      bytes += blob.length;
      nonBlankLines(blob);
    }
  return { ms: performance.now() - t0, files, bytes, trees };
}

/** Non-blank lines read straight from the bytes (one pass, as the scorer counts them). */
function nonBlankLines(bytes: Uint8Array): number {
  let rows = 0;
  let blank = true;
  for (const byte of bytes) {
    if (byte === 10) {
      if (!blank) rows += 1;
      blank = true;
    } else if (byte !== 32 && byte !== 9 && byte !== 13 && byte !== 12 && byte !== 11)
      blank = false;
  }
  return blank ? rows : rows + 1;
}

function gitOutput(argv: string[]): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("git", argv);
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolvePromise(Buffer.concat(chunks)));
  });
}

/** A row of the table. */
interface Row {
  step: string;
  ms: number;
  rssMb: number;
  net: number;
  note: string;
}

const fmtS = (ms: number) => (ms / 1000).toFixed(1);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

async function measureSteps(work: string, results: string, rows: Row[]): Promise<number> {
  const starts: Measured[] = [];
  for (let round = 0; round < startRounds; round++) starts.push(await cli(["--help"]));
  const start = median(starts.map((run) => run.ms));
  rows.push({
    step: "CLI start (`distdebug --help`)",
    ms: start,
    rssMb: Math.max(...starts.map((run) => run.rssMb)),
    net: Number.NaN,
    note: `median of ${startRounds}, subtracted below`,
  });
  const mirrorFlags = mirrorArgs.flatMap((value) => ["--mirror", value]);
  const step = async (name: string, argv: string[]) => {
    process.stderr.write(`${name} ...\n`);
    const load = loadavg()[0]?.toFixed(1);
    const run = await cli(argv);
    const last = run.stdout.trim().split("\n").at(-1) ?? "";
    const note = `${run.exitCode === 0 ? last : `exit ${run.exitCode}: ${last}`} (load ${load} at its start)`;
    rows.push({ step: name, ms: run.ms, rssMb: run.rssMb, net: run.ms - start, note });
    process.stderr.write(`  ${fmtS(run.ms)} s, ${run.rssMb.toFixed(0)} MB: ${note}\n`);
  };
  const scoreCache = join(work, "score-cache");
  const rescore = ["score", results, "--rescore", ...mirrorFlags, "--cache-dir", scoreCache];
  await step("score --rescore (cold row counts)", rescore);
  await step("score --rescore (warm row counts)", rescore);
  await step("score (all reused)", ["score", results, ...mirrorFlags]);
  const complete = join(work, "complete");
  await measure(["cp", "-a", "--no-target-directory", results, complete]);
  const dropped = await dropUnfinished(complete);
  process.stderr.write(`package: ${dropped.length} incidents with infra errors left out\n`);
  const archive = join(work, "submission.tar.gz");
  await step("package", ["package", complete, "--out", archive]);
  const packaged = rows.at(-1);
  if (packaged) packaged.note += ` (${dropped.length} incidents with infra errors left out)`;
  const verify = ["verify", archive, ...mirrorFlags, "--cache-dir", join(work, "verify-cache")];
  await step("verify --mirror (cold row counts)", verify);
  await step("verify --mirror (warm row counts)", verify);
  return start;
}

async function measureFloor(results: string): Promise<Row[]> {
  process.stderr.write("floor ...\n");
  const load = loadavg()[0]?.toFixed(1);
  const run = await measure([
    process.execPath,
    "--conditions=@distdebug/source",
    "--import",
    "tsx",
    new URL(import.meta.url).pathname,
    "--floor-child",
    results,
    ...mirrorArgs.flatMap((value) => ["--mirror", value]),
    ...(option("--dataset") ? ["--dataset", option("--dataset") as string] : []),
    "--results",
    results,
  ]);
  const own = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
    ms: number;
    incidents: number;
    files: number;
    bytes: number;
    size: { ms: number; files: number; bytes: number; trees: number };
  };
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  return [
    {
      step: "floor: cat-file + tree-sitter",
      ms: own.ms,
      rssMb: run.rssMb,
      net: own.ms,
      note: `${own.incidents} incidents, ${own.files} distinct files, ${mb(own.bytes)}; timed inside the process (no start); load ${load} at its start`,
    },
    {
      step: "floor of a cold R: cat-file each distinct source blob once, count lines",
      ms: own.size.ms,
      rssMb: run.rssMb,
      net: own.size.ms,
      note: `not in the floor: what a cold row count reads at least; ${own.size.files} distinct blobs (${own.size.trees} in the trees), ${mb(own.size.bytes)}`,
    },
  ];
}

async function main(): Promise<void> {
  if (floorChild) return runFloor(floorChild);
  const work = await mkdtemp(join(tmpdir(), "distdebug-bench-rescore-"));
  const results = join(work, "results");
  const rows: Row[] = [];
  try {
    await measure(["cp", "-a", "--no-target-directory", resolve(resultsArg as string), results]);
    await pointAtDataset(results);
    const floors = await measureFloor(results);
    const floor = floors[0] as Row;
    await measureSteps(work, results, rows);
    rows.unshift(...floors);
    const load = loadavg().map((value) => value.toFixed(1));
    console.log(
      `\nrescoring ${resultsArg} through the CLI; load average ${load.join(" ")} on ${cpus().length} cores; peak RSS from /usr/bin/time -f %M\n`,
    );
    const coldFloor = floor.ms + (floors[1] as Row).ms;
    console.log(
      `\nfloor ${fmtS(floor.ms)} s; with a cold row count ${fmtS(coldFloor)} s (the cold steps' own floor, their ratio in brackets)\n`,
    );
    console.log("| step | wall s | minus CLI start s | ratio to floor | peak RSS MB | note |");
    console.log("|---|---|---|---|---|---|");
    for (const row of rows) {
      const cold = row.step.includes("cold row counts");
      const ratio = Number.isNaN(row.net)
        ? ""
        : `${(row.net / floor.ms).toFixed(1)}x${cold ? ` (${(row.net / coldFloor).toFixed(1)}x)` : ""}`;
      const net = Number.isNaN(row.net) ? "" : fmtS(row.net);
      console.log(
        `| ${row.step} | ${fmtS(row.ms)} | ${net} | ${ratio} | ${row.rssMb.toFixed(0)} | ${row.note} |`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
