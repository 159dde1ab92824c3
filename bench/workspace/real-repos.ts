/**
 * Clone and prepare real repositories, side by side with the native floor.
 *
 *   node --conditions=@distdebug/source --import tsx bench/workspace/real-repos.ts \
 *     --repo <name>=<bare mirror>@<commit> [--repo ...] [--runs N] [--no-iso]
 *
 * For each repository (a local bare mirror, served over smart HTTP on 127.0.0.1 by the real
 * `git http-backend`): clone time and peak memory of `git clone --bare` against
 * isomorphic-git's clone (each in its own process, peak RSS from /usr/bin/time), then a cold
 * prepare (no base cache), a cold prepare that fills the cache, the native floor
 * (`git archive | tar -x`; git init; git add -A; git commit), a warm prepare from the cache
 * and `cp -a` of the base workspace. Prints a table; exits 0 (numbers, not a test).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitHttpServer } from "@distdebug/test-utils";
import { prepareWorkspace } from "@distdebug/workspace";

interface Repo {
  name: string;
  gitdir: string;
  commit: string;
}

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] ?? 3) || 3;
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
      `mkdir -p "${dir}" && git --git-dir="${gitdir}" archive ${commit} | tar -x -C "${dir}" && cd "${dir}" && git init -q && git add -A && git -c user.name=x -c user.email=x@x commit -q -m w`,
    ],
    { env },
  );
}

/**
 * A bare repository to serve: the mirror's objects (through alternates) and its branches and
 * tags, minus branches that reach objects the mirror lacks (snapshots omit files of 4 MiB and
 * more, for example a website branch's images), so upload-pack can send every ref.
 */
function servedCopy(mirror: string, target: string): void {
  execFileSync("git", ["init", "-q", "--bare", target], { env });
  execFileSync("bash", ["-c", `echo "${mirror}/objects" > "${target}/objects/info/alternates"`]);
  const refs = execFileSync(
    "git",
    [
      "--git-dir",
      mirror,
      "for-each-ref",
      "--format=%(objectname) %(refname)",
      "refs/heads",
      "refs/tags",
    ],
    { env, encoding: "utf8" },
  )
    .trim()
    .split("\n");
  const lines: string[] = [];
  for (const line of refs) {
    const [oid, ref] = line.split(" ");
    if (!oid || !ref) continue;
    if (ref.startsWith("refs/heads/")) {
      const missing = execFileSync(
        "bash",
        [
          "-c",
          `git --git-dir="${mirror}" rev-list --objects --missing=print ${oid} | grep -c '^?' || true`,
        ],
        { env, encoding: "utf8", maxBuffer: 1 << 30 },
      );
      if (Number(missing.trim()) > 0) {
        process.stderr.write(`  ${ref} skipped: it reaches objects the mirror lacks\n`);
        continue;
      }
    }
    lines.push(`${oid} ${ref}`);
  }
  execFileSync("bash", ["-c", `cat > "${target}/packed-refs"`], { input: `${lines.join("\n")}\n` });
  const head = lines.find((line) => / refs\/heads\/(master|main|trunk)$/.test(line));
  if (head)
    execFileSync("git", ["--git-dir", target, "symbolic-ref", "HEAD", head.split(" ")[1]!], {
      env,
    });
}

const rows: string[] = [];
await rm(root, { recursive: true, force: true });
await mkdir(root, { recursive: true });
for (const repo of repos) {
  const served = join(root, "served");
  await rm(served, { recursive: true, force: true });
  await mkdir(served, { recursive: true });
  servedCopy(repo.gitdir, join(served, `${repo.name}.git`));
  const server = await gitHttpServer(served);
  const url = server.url(`${repo.name}.git`);
  const gitClone = await timed([
    "git",
    "clone",
    "--bare",
    "--quiet",
    url,
    join(root, `${repo.name}-git.git`),
  ]);
  let iso = "not run";
  if (!args.includes("--no-iso")) {
    try {
      // isomorphic-git resolves from the workspace package, which depends on it.
      const result = await timed(
        ["node", "--input-type=module", "-e", isoClone, url, join(root, `${repo.name}-iso.git`)],
        join(process.cwd(), "packages/workspace"),
      );
      iso = `${result.seconds.toFixed(1)} s, ${result.peakMb.toFixed(0)} MB`;
    } catch (error) {
      iso = `failed: ${(error as Error).message.split("\n").find((line) => /Error/.test(line)) ?? "error"}`;
    }
  }
  await server.close();
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
        prepareWorkspace({ source: gitdir, commit: repo.commit, dir: join(base, "cold") }),
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
    await rm(base, { recursive: true, force: true });
  }
  const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
  rows.push(
    `| ${repo.name} | ${files} | ${gitClone.seconds.toFixed(1)} s, ${gitClone.peakMb.toFixed(0)} MB | ${iso} | ${ms(cold)} | ${ms(fill)} | ${ms(floor)} | ${(median(cold) / median(floor)).toFixed(2)} | ${ms(warm)} | ${ms(copy)} | ${(median(warm) / median(copy)).toFixed(2)} |`,
  );
  await rm(join(root, `${repo.name}-iso.git`), { recursive: true, force: true });
  await rm(gitdir, { recursive: true, force: true });
}
process.stdout.write(
  `| repository | files | git clone (time, peak RSS) | isomorphic-git clone | cold prepare | cold + cache fill | floor (archive+init+add+commit) | cold/floor | warm prepare | cp -a | warm/cp |\n|---|---|---|---|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
);
