/**
 * Clone and prepare real repositories, side by side with the native floor.
 *
 *   node --conditions=@distdebug/source --import tsx bench/workspace/real-repos.ts \
 *     --repo <name>=<bare mirror>@<commit> [--repo ...] [--runs N] [--no-iso]
 *     [--no-iso-for <name> ...] [--iso-timeout <seconds, default 180>]
 *
 * For each repository (a local bare mirror, served over smart HTTP on 127.0.0.1 by the real
 * `git http-backend`, one branch at the commit): clone time and peak memory of `git clone --bare` against
 * isomorphic-git's clone (each in its own process, peak RSS from /usr/bin/time), then a cold
 * prepare (no base cache), a cold prepare that fills the cache, the native floor
 * (`git archive | tar -x`; git init; git add -A; git commit), a warm prepare from the cache
 * and `cp -a` of the base workspace. Prints a table; exits 0 (numbers, not a test).
 */
import { execFile, execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gitHttpServer } from "@distdebug/test-utils";
import { prepareWorkspace } from "@distdebug/workspace";

interface Repo {
  name: string;
  gitdir: string;
  commit: string;
}

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const runs = Number(option("--runs") ?? 3) || 3;
const isoTimeout = Number(option("--iso-timeout") ?? 180) || 180;
const noIso = args.flatMap((arg, index) => (arg === "--no-iso-for" ? [args[index + 1]] : []));
const repos: Repo[] = [];
args.forEach((arg, index) => {
  if (arg !== "--repo") return;
  const match = /^([^=]+)=(.+)@([0-9a-f]{40})$/.exec(args[index + 1] ?? "");
  if (!match)
    throw new Error(`--repo name=<bare mirror>@<40-hex commit>, found ${args[index + 1]}`);
  repos.push({ name: match[1]!, gitdir: match[2]!, commit: match[3]! });
});
if (repos.length === 0) {
  process.stderr.write("usage: real-repos.ts --repo <name>=<bare mirror>@<commit> [...]\n");
  process.exit(2);
}

const root = join(tmpdir(), "distdebug-bench-real");
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root };

/**
 * Runs a command under /usr/bin/time (asynchronously: the git server runs in this process):
 * wall seconds and peak RSS in MB.
 */
function timed(command: string[], cwd = root): Promise<{ seconds: number; peakMb: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      "/usr/bin/time",
      ["-f", "%M", ...command],
      { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`${command.join(" ")}: ${stderr.slice(-500)}`));
        const kb = Number(stderr.trim().split("\n").at(-1));
        resolve({ seconds: (performance.now() - t0) / 1000, peakMb: kb / 1024 });
      },
    );
  });
}

const isoClone = `
import * as fs from "node:fs";
import git from "isomorphic-git";
import http from "isomorphic-git/http/node";
const [url, dir] = process.argv.slice(1);
await git.clone({ fs, http, dir, gitdir: dir, url, noCheckout: true });
`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeMs(run: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

function nativeFloor(gitdir: string, commit: string, dir: string): void {
  execFileSync(
    "bash",
    [
      "-c",
      `mkdir -p "${dir}" && git --git-dir="${gitdir}" archive ${commit} | tar -x -C "${dir}" && cd "${dir}" && git init -q && git -c gc.auto=0 add -A && git -c gc.auto=0 -c maintenance.auto=false -c user.name=x -c user.email=x@x commit -q -m w`,
    ],
    { env },
  );
}

/** What the mirror lacks of the commit's history and of its tree (snapshots omit blobs >= 4 MiB). */
interface Served {
  missingHistory: number;
  missingTree: number;
}

function git(gitdir: string, ...command: string[]): string {
  return execFileSync("git", ["--git-dir", gitdir, ...command], {
    env,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
}

/**
 * A bare repository to serve whose only ref is one branch at the buggy commit, reading the
 * mirror's objects through alternates: other branches, tags and refs of the snapshot may reach
 * objects it lacks, and a clone needs none of them. Counts what the commit's history and tree
 * lack; when the history lacks objects, upload-pack may leave them out (see {@link serverEnv})
 * and the clone is partial (`--filter=blob:limit=4m`, what the snapshot holds).
 */
function servedCopy(mirror: string, commit: string, target: string): Served {
  execFileSync("git", ["init", "-q", "--bare", target], { env });
  writeFileSync(join(target, "objects/info/alternates"), `${mirror}/objects\n`);
  git(target, "update-ref", "refs/heads/bench", commit);
  git(target, "symbolic-ref", "HEAD", "refs/heads/bench");
  git(target, "config", "uploadpack.allowFilter", "true");
  const missingHistory = git(mirror, "rev-list", "--objects", "--missing=print", commit)
    .split("\n")
    .filter((line) => line.startsWith("?")).length;
  const blobs = git(mirror, "ls-tree", "-r", "--format=%(objectname)", commit);
  const missingTree = execFileSync("git", ["--git-dir", mirror, "cat-file", "--batch-check"], {
    env,
    input: blobs,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  })
    .split("\n")
    .filter((line) => line.endsWith(" missing")).length;
  return { missingHistory, missingTree };
}

/**
 * The git server's extra environment: a pack-objects hook (protected configuration, so passed
 * as command-line configuration) that lets upload-pack leave out objects the mirror lacks.
 */
function serverEnv(): Record<string, string> {
  const hook = join(root, "pack-objects-hook");
  writeFileSync(hook, '#!/bin/sh\nexec "$@" --missing=allow-any\n', { mode: 0o755 });
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "uploadpack.packObjectsHook",
    GIT_CONFIG_VALUE_0: hook,
  };
}

/** isomorphic-git's clone in its own process, stopped after `isoTimeout` seconds. */
async function isoCloneCell(repo: Repo, url: string, served: Served): Promise<string> {
  if (args.includes("--no-iso") || noIso.includes(repo.name)) return "not run";
  if (served.missingHistory > 0) return "not run: history incomplete, no partial clone";
  try {
    // isomorphic-git resolves from the workspace package, which depends on it.
    const result = await timed(
      [
        "timeout",
        String(isoTimeout),
        "node",
        "--input-type=module",
        "-e",
        isoClone,
        url,
        join(root, `${repo.name}-iso.git`),
      ],
      join(process.cwd(), "packages/workspace"),
    );
    return `${result.seconds.toFixed(1)} s, ${result.peakMb.toFixed(0)} MB`;
  } catch (error) {
    const message = (error as Error).message;
    if (/Command exited with non-zero status 124/.test(message))
      return `stopped after ${isoTimeout} s`;
    return `failed: ${message.split("\n").find((line) => /Error/.test(line)) ?? "error"}`;
  } finally {
    await rm(join(root, `${repo.name}-iso.git`), { recursive: true, force: true });
  }
}

const rows: string[] = [];
/** Keeps a table row, and shows it at once on stderr (a long run that fails keeps its rows). */
function row(text: string): void {
  rows.push(text);
  process.stderr.write(`${text}\n`);
}
await rm(root, { recursive: true, force: true });
await mkdir(root, { recursive: true });
const server = await gitHttpServer(join(root, "served"), serverEnv());
for (const repo of repos) {
  const servedDir = join(root, "served", `${repo.name}.git`);
  await mkdir(dirname(servedDir), { recursive: true });
  const served = servedCopy(repo.gitdir, repo.commit, servedDir);
  const url = server.url(`${repo.name}.git`);
  const partial = served.missingHistory > 0 ? ["--filter=blob:limit=4m"] : [];
  const gitClone = await timed([
    "git",
    "clone",
    "--bare",
    "--quiet",
    ...partial,
    url,
    join(root, `${repo.name}-git.git`),
  ]);
  const clone = `${gitClone.seconds.toFixed(1)} s, ${gitClone.peakMb.toFixed(0)} MB${partial.length ? ` (partial: history lacks ${served.missingHistory})` : ""}`;
  const iso = await isoCloneCell(repo, url, served);
  await rm(servedDir, { recursive: true, force: true });
  if (served.missingTree > 0) {
    const why = `not measured: the commit's tree lacks ${served.missingTree} blob(s) the snapshot omitted`;
    row(`| ${repo.name} | | ${clone} | ${iso} | ${why} | | | | | | | |`);
    await rm(join(root, `${repo.name}-git.git`), { recursive: true, force: true });
    continue;
  }
  const gitdir = join(root, `${repo.name}-git.git`);
  const cold: number[] = [];
  const fill: number[] = [];
  const floor: number[] = [];
  const warm: number[] = [];
  const copy: number[] = [];
  let files = 0;
  for (let round = 0; round < runs; round++) {
    const base = join(root, `${repo.name}-r${round}`);
    cold.push(
      await timeMs(() =>
        prepareWorkspace({
          source: gitdir,
          commit: repo.commit,
          dir: join(base, "cold"),
          cacheDir: false,
        }),
      ),
    );
    const cache = join(base, "cache");
    fill.push(
      await timeMs(async () => {
        const result = await prepareWorkspace({
          source: gitdir,
          commit: repo.commit,
          dir: join(base, "fill"),
          cacheDir: cache,
        });
        files = result.files;
      }),
    );
    floor.push(await timeMs(() => nativeFloor(gitdir, repo.commit, join(base, "floor"))));
    warm.push(
      await timeMs(() =>
        prepareWorkspace({
          source: gitdir,
          commit: repo.commit,
          dir: join(base, "warm"),
          cacheDir: cache,
        }),
      ),
    );
    copy.push(
      await timeMs(() => execFileSync("cp", ["-a", join(base, "fill"), join(base, "copy")])),
    );
    await rm(base, { recursive: true, force: true, maxRetries: 5 });
  }
  const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
  row(
    `| ${repo.name} | ${files} | ${clone} | ${iso} | ${ms(cold)} | ${ms(fill)} | ${ms(floor)} | ${(median(cold) / median(floor)).toFixed(2)} | ${(median(fill) / median(floor)).toFixed(2)} | ${ms(warm)} | ${ms(copy)} | ${(median(warm) / median(copy)).toFixed(2)} |`,
  );
  await rm(gitdir, { recursive: true, force: true });
}
await server.close();
process.stdout.write(
  `| repository | files | git clone (time, peak RSS) | isomorphic-git clone | cold prepare | cold + cache fill | floor (archive+init+add+commit) | cold/floor | fill/floor | warm prepare | cp -a | warm/cp |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
);
