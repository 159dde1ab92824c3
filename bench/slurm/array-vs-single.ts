/**
 * Wall time of the example dataset as a Slurm job array (`distdebug slurm script`, N shards on
 * a one-node Slurm started here) against one unsharded `distdebug run`, both from a cold cache,
 * and whether the merged summary.json equals the unsharded one byte for byte. Needs root and
 * slurm-wlm and munge (scripts/setup.sh installs them).
 *
 *   node --conditions=@distdebug/source --import tsx bench/slurm/array-vs-single.ts [shards] [runs]
 *
 * No target: on one node the array can only win what the shards run side by side.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { shellQuote } from "../../packages/cli/src/slurm/array-script.js";
import {
  slurmUnavailable,
  startOneNodeSlurm,
} from "../../packages/cli/src/testing/one-node-slurm.js";
import { cliNodeArgs } from "../../packages/cli/src/testing/spawn-cli.js";

const shards = Number(process.argv[2] ?? "3");
const runs = process.argv[3] ?? "1";
const root = new URL("../../", import.meta.url).pathname;
const dataset = join(root, "examples/dataset");
const config = join(root, "configs/baseline/default.yaml");

const unavailable = slurmUnavailable();
if (unavailable) {
  console.log(`skipped: ${unavailable}`);
  process.exit(0);
}

function cli(args: string[], cwd: string): string {
  const result = spawnSync(process.execPath, [...cliNodeArgs(), ...args], {
    cwd,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`distdebug ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

const work = await mkdtemp(join(tmpdir(), "distdebug-bench-slurm-"));
const slurm = await startOneNodeSlurm(await mkdtemp(join(tmpdir(), "distdebug-bench-slurmd-")));
try {
  const wrapper = join(work, "distdebug");
  await writeFile(
    wrapper,
    `#!/bin/sh\nexec ${[process.execPath, ...cliNodeArgs()].map(shellQuote).join(" ")} "$@"\n`,
    {
      mode: 0o755,
    },
  );
  const script = cli(
    ["slurm", "script", "--config", config, "--shards", String(shards), "--out", "shards"]
      .concat(["--dataset", dataset, "--runs", runs, "--cache-dir", join(work, "cache-array")])
      .concat(["--cli", wrapper]),
    work,
  );
  await writeFile(join(work, "job.sbatch"), script);

  const arrayStart = performance.now();
  const job = slurm.client("sbatch", ["--parsable", "job.sbatch"], work).trim().split(";")[0]!;
  while (slurm.client("squeue", ["-h", "-j", job, "-o", "%i"]).trim() !== "") await sleep(250);
  const arrayMs = performance.now() - arrayStart;
  const folders = Array.from({ length: shards }, (_, i) =>
    join(work, "shards", `baseline.shard-${i + 1}-of-${shards}`),
  );
  spawnSync(process.execPath, [...cliNodeArgs(), "merge", ...folders, "--out", "merged"], {
    cwd: work,
  });

  const singleStart = performance.now();
  cli(
    ["run", "--config", config, "--dataset", dataset, "--runs", runs, "--out", "single"].concat([
      "--cache-dir",
      join(work, "cache-single"),
    ]),
    work,
  );
  const singleMs = performance.now() - singleStart;
  cli(["score", "single"], work);

  const [merged, single] = await Promise.all(
    ["merged", "single"].map((name) => readFile(join(work, name, "summary.json"))),
  );
  console.log(`example dataset, ${runs} run(s) per incident, ${shards} shards on one node:`);
  console.log(`  Slurm array (submit to last task ended): ${(arrayMs / 1000).toFixed(1)} s`);
  console.log(`  unsharded distdebug run:                 ${(singleMs / 1000).toFixed(1)} s`);
  console.log(
    `  summary.json: merged ${merged!.length} bytes, unsharded ${single!.length} bytes, ${merged!.equals(single!) ? "identical" : "DIFFERENT"}`,
  );
} finally {
  await slurm.stop();
  await rm(work, { recursive: true, force: true });
  await rm(slurm.dir, { recursive: true, force: true });
}
