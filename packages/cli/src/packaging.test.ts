import { execFile } from "node:child_process";
import { copyFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { repoPath, repoRoot, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

// Building 12 packages with tsc, packing them and a plain `npm install` of the tarballs (which
// compiles tree-sitter 0.25.1 from source: its prebuilt binary needs a newer libstdc++ than the
// CI image has, and the evaluator's native collector) take minutes on a loaded 2-core machine.
const PACKAGING_TIMEOUT_MS = 15 * 60_000;

interface Shell {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

async function sh(command: string, shell: Shell): Promise<string> {
  const { stdout } = await run("bash", ["-euo", "pipefail", "-c", command], {
    cwd: shell.cwd,
    env: { ...process.env, ...shell.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The public packages' folders (every packages/* whose package.json is not private). */
async function publicPackages(): Promise<string[]> {
  const folders = await readdir(repoPath("packages"));
  const found: string[] = [];
  for (const folder of folders.sort()) {
    const manifest = JSON.parse(
      await readFile(repoPath("packages", folder, "package.json"), "utf8"),
    ) as { private?: boolean };
    if (!manifest.private) found.push(repoPath("packages", folder));
  }
  return found;
}

async function buildAndPack(tarballs: string): Promise<string[]> {
  await sh("bash scripts/pnpm.sh -s build", { cwd: repoRoot });
  for (const folder of await publicPackages())
    await sh(`bash ${repoPath("scripts/pnpm.sh")} pack --pack-destination ${tarballs}`, {
      cwd: folder,
    });
  return (await readdir(tarballs)).map((name) => join(tarballs, name));
}

/** The shell lines of README.md's consumer block (between the `consumer-project` markers). */
async function readmeConsumerLines(): Promise<string[]> {
  const readme = await readFile(repoPath("README.md"), "utf8");
  const block = /<!-- consumer-project -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new TypeError("README.md has no consumer-project block");
  return block.split("\n").filter((line) => line.trim() !== "");
}

/** The README's lines, with `npm install <names>` installing the local tarballs instead. */
function fromTarballs(lines: string[], tarballs: string[]): string[] {
  return lines.map((line) =>
    line.replace(
      /^npm install (.*)$/,
      (_, rest: string) =>
        `npm install --prefer-offline --no-audit --no-fund ${tarballs.join(" ")} ${rest
          .split(" ")
          .filter((word) => !/^(distdebug|@distdebug\/)/.test(word))
          .join(" ")}`,
    ),
  );
}

/**
 * `npm ls --all` in a project: its exit code and the lines naming a problem (an unmet
 * optional peer, `UNMET OPTIONAL DEPENDENCY`, is none).
 */
async function npmListProblems(cwd: string): Promise<{ exitCode: number; problems: string[] }> {
  const problem = /\binvalid\b|\bextraneous\b|UNMET DEPENDENCY|^npm (error|ERR!)/;
  const problemsIn = (output: string) => output.split("\n").filter((line) => problem.test(line));
  try {
    const { stdout, stderr } = await run("npm", ["ls", "--all"], { cwd, maxBuffer: 64 << 20 });
    return { exitCode: 0, problems: problemsIn(stdout + stderr) };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    const exitCode = typeof failed.code === "number" ? failed.code : -1;
    return { exitCode, problems: problemsIn(`${failed.stdout ?? ""}${failed.stderr ?? ""}`) };
  }
}

/** The installed package folders (under node_modules, relative) whose package.json is named `name`. */
async function installedPackagesNamed(project: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of await readdir(join(project, "node_modules"), { recursive: true })) {
    const path = join("node_modules", file);
    if (!/(^|\/)node_modules\/(@[^/]+\/)?[^/@][^/]*\/package\.json$/.test(path)) continue;
    const text = await readFile(join(project, path), "utf8").catch(() => "{}");
    const manifest = JSON.parse(text) as { name?: unknown };
    if (manifest.name === name) found.push(path.slice(0, -"/package.json".length));
  }
  return found.sort();
}

describe("the published packages", () => {
  it(
    "install from their tarballs with plain npm, type-check and run a consumer, and run the CLI's baseline",
    async () => {
      const tarballs = await buildAndPack(await testdir());
      expect(tarballs.map((file) => file.replace(/.*\//, "")).sort()).toContain(
        "distdebug-0.1.0.tgz",
      );
      const project = await testdir();
      const shell = { cwd: project, env: { DISTDEBUG_CACHE_DIR: join(project, ".cache") } };
      for (const line of fromTarballs(await readmeConsumerLines(), tarballs)) await sh(line, shell);

      // One tree-sitter runtime, and a tree npm accepts: the grammars' optional peers on
      // `tree-sitter` (^0.21.1 to ^0.25.0) once made npm add a second one, built from source,
      // and `npm ls` fail with ELSPROBLEMS (invalid tree-sitter@0.25.1, extraneous 0.22.4).
      expect(await npmListProblems(project)).toEqual({ exitCode: 0, problems: [] });
      expect(await installedPackagesNamed(project, "tree-sitter")).toHaveLength(1);

      await copyFile(
        repoPath("packages/cli/fixtures/consumer/consumer.ts"),
        join(project, "consumer.ts"),
      );
      await sh("npx tsc -p tsconfig.json", shell);
      const printed = JSON.parse(await sh("node consumer.js", shell)) as {
        files: number;
        exitCode: number;
        scores: { metrics: { blockCoverage: number } };
      };
      expect(printed.exitCode).toBe(0);
      expect(printed.files).toBeGreaterThan(0);
      expect(printed.scores.metrics.blockCoverage).toBeGreaterThan(0);

      const attempt = JSON.parse(
        await readFile(join(project, "results/baseline/zklite-142/attempt-1/attempt.json"), "utf8"),
      ) as { status: string };
      expect(attempt.status).toBe("succeeded");
    },
    PACKAGING_TIMEOUT_MS,
  );
});
