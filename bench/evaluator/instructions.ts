/**
 * The evaluator bench's ratio in instructions instead of seconds: a count that a noisy shared
 * machine does not move. Runs this script three times under valgrind's callgrind (every thread
 * counted: V8's compiler and collector threads too), each run doing one phase after the same
 * setup, and prints (scoring - setup) / (floor - setup):
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/instructions.ts [--mb 5] [--attempts 90]
 *
 * setup: generate the repository, write it, make the diagnoses, load parsers and the evaluator.
 * floor: setup, then parse every file once (trees dropped and collected).
 * scoring: setup, then a fresh evaluator's first scoring pass (every file read, parsed and
 * indexed, all diagnoses scored), its garbage collected.
 * Instructions are not time: they do not count cache misses, so this complements bench.ts.
 * Diagnoses default to 18 per MB, as bench.ts's 360 for 20 MB: scoring costs per diagnosis and
 * the floor per byte, so a small repository with many diagnoses is not the bench's ratio (and
 * compiling JavaScript weighs more in a small run: 1.84 at 5 MB, 1.52 at 20 MB on 2026-12-03).
 * About 8 minutes for 5 MB, 21 for 20 MB (callgrind runs code about 50 times slower).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createEvaluator, directoryReader, listDirectoryFiles } from "@distdebug/evaluator";
import { generateRepository, writeRepository } from "./generate.js";
import { createParsers, makeAttempts, parseOnly, settle } from "./workload.js";

const phases = ["setup", "floor", "scoring"] as const;
type Phase = (typeof phases)[number];

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "5" },
    attempts: { type: "string" },
    phase: { type: "string" },
  },
});

const attempts = values.attempts ?? String(Math.round(18 * Number(values.mb)));

/** One phase in this process (run under callgrind by the driver). */
async function runPhase(phase: Phase): Promise<void> {
  const files = generateRepository(Number(values.mb) * 1024 * 1024);
  const dir = await mkdtemp(join(tmpdir(), "distdebug-bench-instructions-"));
  try {
    await writeRepository(dir, files);
    const list = makeAttempts(files, Number(attempts));
    const parsers = createParsers();
    const evaluator = createEvaluator({
      readFile: directoryReader(dir),
      listFiles: () => listDirectoryFiles(dir),
    });
    await settle();
    if (phase === "floor") for (const file of files) parseOnly(parsers, file);
    if (phase === "scoring") for (const attempt of list) await evaluator.score(attempt);
    await settle();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Instructions of one phase's whole process, counted by callgrind. */
function count(phase: Phase): number {
  const result = spawnSync(
    "valgrind",
    [
      "--tool=callgrind",
      "--callgrind-out-file=/dev/null",
      "--smc-check=all-non-file",
      process.execPath,
      ...process.execArgv,
      "--expose-gc",
      process.argv[1] as string,
      "--phase",
      phase,
      "--mb",
      values.mb as string,
      "--attempts",
      attempts,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.error) throw new Error(`valgrind did not run (${result.error.message})`);
  const match = /Collected : (\d+)/.exec(result.stderr);
  if (result.status !== 0 || !match)
    throw new Error(`the ${phase} run failed:\n${result.stderr.slice(-2000)}`);
  return Number(match[1]);
}

if (values.phase !== undefined) {
  if (!phases.includes(values.phase as Phase)) throw new Error(`--phase: one of ${phases}`);
  await runPhase(values.phase as Phase);
} else {
  const counts = Object.fromEntries(phases.map((phase) => [phase, count(phase)])) as Record<
    Phase,
    number
  >;
  const floor = counts.floor - counts.setup;
  const scoring = counts.scoring - counts.setup;
  const giga = (value: number) => `${(value / 1e9).toFixed(2)} G`;
  console.log(
    `${values.mb} MB, ${attempts} diagnoses: setup ${giga(counts.setup)}, floor +${giga(floor)}, scoring +${giga(scoring)} instructions`,
  );
  console.log(
    `ratio scoring / parse-only in instructions: ${(scoring / floor).toFixed(2)} (target <= 1.5)`,
  );
}
