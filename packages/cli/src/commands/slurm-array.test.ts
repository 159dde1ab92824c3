import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { loadDataset } from "@distdebug/dataset";
import { attemptDir } from "@distdebug/results";
import { shardOf } from "@distdebug/runner";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { shellQuote } from "../slurm/array-script.js";
import { captureIO } from "../testing/capture-io.js";
import {
  type OneNodeSlurm,
  slurmUnavailable,
  startOneNodeSlurm,
} from "../testing/one-node-slurm.js";
import { cliNodeArgs } from "../testing/spawn-cli.js";

const unavailable = slurmUnavailable();
const SHARDS = 3;
const NAME = "slurm-baseline";
/** One attempt per incident, one at a time: a shard stays running long enough to be requeued midway. */
const CONFIG = `name: ${NAME}\nagent:\n  type: baseline\nrun:\n  attempts: 1\n  concurrency: 1\n`;

function cli(args: string[], cwd: string) {
  return spawnSync(process.execPath, [...cliNodeArgs(), ...args], { cwd, encoding: "utf8" });
}

/** `distdebug` for the compute node: a shell wrapper that runs the CLI from source. */
async function cliWrapper(root: string): Promise<string> {
  const path = join(root, "distdebug");
  const words = [process.execPath, ...cliNodeArgs()].map(shellQuote).join(" ");
  await writeFile(path, `#!/bin/sh\nexec ${words} "$@"\n`, { mode: 0o755 });
  return path;
}

/** Polls every 250 ms until `check` returns a value, for at most `seconds`. */
async function waitFor<T>(
  seconds: number,
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  for (let tries = 0; tries < seconds * 4; tries++) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(250);
  }
  throw new Error(`timed out after ${seconds} s waiting for ${what}`);
}

describe("distdebug slurm script on a one-node Slurm", () => {
  let slurm: OneNodeSlurm | undefined;

  // Starting three daemons on a loaded 2-core machine takes seconds, sometimes tens of them.
  beforeAll(async () => {
    if (unavailable === undefined) slurm = await startOneNodeSlurm(await testdir());
  }, 180_000);

  afterAll(async () => {
    await slurm?.stop();
  }, 180_000);

  // Runs the example dataset twice over (the array with one task requeued, and the unsharded
  // run), plus Slurm's scheduling: minutes on a loaded 2-core machine.
  it.skipIf(unavailable !== undefined)(
    `3 array tasks, one requeued mid-run, merge to the unsharded run's summary bytes${unavailable ? ` (skipped: ${unavailable})` : ""}`,
    { timeout: 1_500_000 },
    async () => {
      if (!slurm) throw new Error("no cluster");
      const cluster = slurm;
      const root = await testdir({ "config.yaml": CONFIG });
      const dataset = exampleDatasetDir();
      const io = captureIO({ cwd: root });
      const args = ["slurm", "script", "--config", "config.yaml", "--shards", String(SHARDS)];
      const options = ["--out", "shards", "--dataset", dataset, "--cache-dir", join(root, "cache")];
      const code = await runCli([...args, ...options, "--cli", await cliWrapper(root)], io);
      expect(code, io.err()).toBe(0);
      await writeFile(join(root, "job.sbatch"), io.out());

      // The task to requeue: the shard with the most incidents (the longest running).
      const ids = (await loadDataset(dataset)).incidents.map((incident) => incident.id);
      const sizes = [1, 2, 3].map((index) => ids.filter((id) => shardOf(id, SHARDS) === index));
      const task = sizes.indexOf(sizes.reduce((a, b) => (b.length > a.length ? b : a))) + 1;
      const shardDir = (index: number) =>
        join(root, "shards", `${NAME}.shard-${index}-of-${SHARDS}`);
      const attemptFile = (id: string) => join(attemptDir(shardDir(task), id, 1), "attempt.json");

      const job = cluster
        .client("sbatch", ["--parsable", "job.sbatch"], root)
        .trim()
        .split(";")[0]!;
      const state = (id: string) =>
        cluster.client("squeue", ["-h", "-j", id, "-o", "%T"]).trim().split("\n")[0] ?? "";

      // Requeue the task once its first attempt is finished and it is still running.
      const finished = await waitFor(600, `a finished attempt of task ${task}`, async () => {
        const done = sizes[task - 1]!.filter((id) => existsSync(attemptFile(id)));
        if (done.length === 0) return undefined;
        expect(state(`${job}_${task}`), cluster.logs()).toBe("RUNNING");
        return done;
      });
      const before = await Promise.all(finished.map((id) => readFile(attemptFile(id), "utf8")));
      cluster.client("scontrol", ["requeue", `${job}_${task}`]);
      const requeuedAt = Date.now();
      // Slurm holds a requeued job for about two minutes (its BeginTime); release it now.
      await waitFor(120, `task ${task} pending again`, () =>
        state(`${job}_${task}`) === "PENDING" ? true : undefined,
      );
      // The requeue revokes the task's job credential with a time in whole seconds, and a new
      // credential issued within that second counts as revoked too ("Job credential revoked":
      // the relaunch fails). Release the task only once the clock has passed that second.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, requeuedAt + 2_000 - Date.now())),
      );
      cluster.client("scontrol", ["update", `JobId=${job}_${task}`, "StartTime=now"]);
      await waitFor(900, "the array to finish", () =>
        cluster.client("squeue", ["-h", "-j", job, "-o", "%i"]).trim() === "" ? true : undefined,
      );

      // Every task completed; the requeued one ran twice and kept what it had finished.
      const jobs = cluster.client("scontrol", ["-o", "show", "job", job]).trim().split("\n");
      const tasks = jobs.map((line) => ({
        id: Number(/ArrayTaskId=(\d+)/.exec(line)?.[1]),
        state: /JobState=(\S+)/.exec(line)?.[1],
        exit: /ExitCode=(\S+)/.exec(line)?.[1],
        restarts: Number(/Restarts=(\d+)/.exec(line)?.[1]),
      }));
      expect(tasks.sort((a, b) => a.id - b.id)).toEqual(
        [1, 2, 3].map((id) => ({
          id,
          state: "COMPLETED",
          exit: "0:0",
          restarts: id === task ? 1 : 0,
        })),
      );
      const after = await Promise.all(finished.map((id) => readFile(attemptFile(id), "utf8")));
      expect(after).toEqual(before);
      const log = await readFile(join(root, `slurm-distdebug-${NAME}-${job}_${task}.out`), "utf8");
      const starts = log
        .split("\n")
        .filter((line) => line.startsWith('{"type":"run-start"'))
        .map((line) => JSON.parse(line) as { attempts: number; pending: number });
      expect(starts).toHaveLength(2);
      expect(starts[1]!.pending).toBeLessThanOrEqual(starts[1]!.attempts - finished.length);
      const runInfo = JSON.parse(await readFile(join(shardDir(task), "run.json"), "utf8"));
      expect(runInfo.shard).toEqual({ index: task, count: SHARDS, scheduler: "slurm" });

      const merged = join(root, "merged");
      const merge = cli(["merge", ...[1, 2, 3].map(shardDir), "--out", merged], root);
      expect(merge.status, merge.stderr).toBe(0);
      expect(merge.stderr).toMatch(/11 attempts merged/);

      const single = join(root, "single");
      const run = ["run", "--config", "config.yaml", "--dataset", dataset, "--out", single];
      const unsharded = cli([...run, "--cache-dir", join(root, "cache")], root);
      expect(unsharded.status, unsharded.stderr).toBe(0);
      expect(cli(["score", single], root).status).toBe(0);
      const [a, b] = await Promise.all([
        readFile(join(merged, "summary.json"), "utf8"),
        readFile(join(single, "summary.json"), "utf8"),
      ]);
      expect(a).toBe(b);
    },
  );
});
