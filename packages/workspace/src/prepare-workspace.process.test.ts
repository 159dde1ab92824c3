import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceEvent } from "./events.js";
import { prepareWorkspace } from "./prepare-workspace.js";
import { git, type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";
import { snapshotTree } from "./testing/tree-snapshot.js";

// Real child processes run prepareWorkspace from source (tsx), so they can be SIGKILLed.
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "../../..");
let source: SourceFixture;
let script: string;

beforeAll(async () => {
  source = await sourceFixture({ extraFiles: 1500 });
  script = join(await testdir(), "prepare-child.mts");
  writeFileSync(
    script,
    `import { prepareWorkspace } from ${JSON.stringify(join(here, "index.ts"))};
const [source, commit, dir, cacheDir] = process.argv.slice(2);
const result = await prepareWorkspace({
  source, commit, dir, cacheDir: cacheDir === "-" ? false : cacheDir,
  onEvent: (event) => { if (event.type === "tree-progress") process.stdout.write("progress\\n"); },
});
process.stdout.write(JSON.stringify({ commit: result.commit, cacheHit: result.cacheHit }) + "\\n");
`,
  );
}, 120_000);

function child(
  dir: string,
  cacheDir: string,
): {
  process: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null; stdout: string }>;
} {
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@distdebug/source",
      "--import",
      "tsx",
      script,
      source.dir,
      source.buggy,
      dir,
      cacheDir,
    ],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  proc.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string }>(
    (resolve) => {
      proc.on("close", (code, signal) => resolve({ code, signal, stdout: stdout + stderr }));
    },
  );
  return { process: proc, done };
}

function killOnProgress(run: ReturnType<typeof child>): void {
  run.process.stdout?.on("data", (chunk: Buffer) => {
    if (chunk.toString().includes("progress")) run.process.kill("SIGKILL");
  });
}

describe("prepareWorkspace in real processes", () => {
  it("leaves no partial workspace when SIGKILLed mid-prepare, and the next prepare succeeds", async () => {
    const base = await testdir();
    const dir = join(base, "ws");
    const run = child(dir, "-");
    killOnProgress(run);
    const outcome = await run.done;
    expect(outcome.signal).toBe("SIGKILL");
    expect(existsSync(dir)).toBe(false);
    // It was killed mid-work: its temporary sibling is there, half written.
    const leftovers = readdirSync(base);
    expect(leftovers).toHaveLength(1);
    expect(leftovers[0]).toMatch(/^\.ws\.distdebug-tmp-\d+-/);
    const events: WorkspaceEvent[] = [];
    const result = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir,
      cacheDir: false,
      onEvent: (e) => events.push(e),
    });
    expect(events.filter((e) => e.type === "stale-remove")).toHaveLength(1);
    expect(readdirSync(base)).toEqual(["ws"]);
    expect(result.files).toBeGreaterThan(1500);
    expect(git(dir, "status", "--porcelain")).toBe("");
  }, 60_000);

  it("recovers a base-workspace cache whose builder was SIGKILLed (stale lock and staging folder)", async () => {
    const base = await testdir();
    const cacheDir = join(base, "cache");
    const run = child(join(base, "killed"), cacheDir);
    killOnProgress(run);
    expect((await run.done).signal).toBe("SIGKILL");
    expect(existsSync(join(base, "killed"))).toBe(false);
    const before = readdirSync(join(cacheDir, "workspaces"));
    expect(before.some((name) => name.endsWith(".lock"))).toBe(true);
    expect(before.some((name) => name.includes(".distdebug-tmp-"))).toBe(true);
    const result = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "ws"),
      cacheDir,
    });
    expect(result.cacheHit).toBe(false);
    const after = readdirSync(join(cacheDir, "workspaces"));
    expect(after).toHaveLength(1);
    expect(git(join(base, "ws"), "status", "--porcelain")).toBe("");
  }, 60_000);

  it("lets two processes prepare from one cold cache at once", async () => {
    const base = await testdir();
    const cacheDir = join(base, "cache");
    const runs = [child(join(base, "a"), cacheDir), child(join(base, "b"), cacheDir)];
    const outcomes = await Promise.all(runs.map((run) => run.done));
    for (const outcome of outcomes) expect(outcome.code, outcome.stdout).toBe(0);
    const results = outcomes.map(
      (outcome) =>
        JSON.parse(outcome.stdout.trim().split("\n").at(-1) ?? "{}") as {
          commit: string;
          cacheHit: boolean;
        },
    );
    expect(results[0]?.commit).toBe(results[1]?.commit);
    expect(readdirSync(join(cacheDir, "workspaces"))).toHaveLength(1);
    expect(snapshotTree(join(base, "a"))).toEqual(snapshotTree(join(base, "b")));
  }, 60_000);

  it("stops on abort with ABORTED and leaves nothing at dir", async () => {
    const base = await testdir();
    const controller = new AbortController();
    await expect(
      prepareWorkspace({
        source: source.dir,
        commit: source.buggy,
        dir: join(base, "ws"),
        cacheDir: false,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "tree-progress") controller.abort();
        },
      }),
    ).rejects.toMatchObject({ code: "ABORTED" });
    expect(readdirSync(base)).toEqual([]);
  });

  it("chowns the copy when asked (as root), or fails clearly without the privilege", async () => {
    const base = await testdir();
    const run = prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(base, "ws"),
      cacheDir: join(base, "cache"),
      owner: { uid: 65534, gid: 65534 },
    });
    if (process.getuid?.() === 0) {
      await run;
      for (const path of ["", ".git", ".git/index", "README.md", "start-link", "vendor/lib"]) {
        const stats = lstatSync(join(base, "ws", path));
        expect([path, stats.uid, stats.gid]).toEqual([path, 65534, 65534]);
      }
    } else {
      await expect(run).rejects.toThrow(/EPERM|not permitted/);
      expect(existsSync(join(base, "ws"))).toBe(false);
    }
  });
});
