/**
 * Harness time per attempt, agent excluded: workspace copy, leakage check, sandbox start and
 * scoring, on the example incidents. The agent here only starts one command in the sandbox
 * (`true`, so bwrap's start is counted) and writes a fixed diagnosis; its own time is not.
 *
 *   node --conditions=@distdebug/source --import tsx bench/runner/harness-time.ts [attempts]
 *
 * Target: under 1 s per attempt.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent } from "@distdebug/agents";
import { loadDataset } from "@distdebug/dataset";
import { runBenchmark } from "@distdebug/runner";
import { parseRunConfig } from "@distdebug/schema";

const attempts = Number(process.argv[2] ?? "3");
const root = new URL("../../", import.meta.url).pathname;
const dataset = await loadDataset(join(root, "examples/dataset"));
const work = await mkdtemp(join(tmpdir(), "distdebug-bench-runner-"));

const startOnly: Agent = {
  name: "start-only",
  async run(context) {
    const result = await context.sandbox.exec("true", { timeoutMs: 10_000 });
    context.emit({
      type: "agent-command-end",
      incidentId: context.incidentId,
      attempt: context.attempt,
      command: "true",
      exitCode: result.exitCode,
      durationMs: result.durationMs,
    });
    await writeFile(
      join(context.outputDir, "diagnosis.json"),
      JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: context.incidentId,
        blocks: [],
      }),
    );
    return {
      status: "succeeded",
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: 0 },
    };
  },
};

const config = parseRunConfig({ name: "bench", agent: { type: "baseline" }, run: { attempts } });
const cacheDir = join(work, "cache");
// Warm the caches (repositories, base workspaces) once, as a real run would after its first attempt.
await runBenchmark({
  config,
  dataset,
  outDir: join(work, "warm"),
  cacheDir,
  attempts: 1,
  agent: startOnly,
});
const result = await runBenchmark({
  config,
  dataset,
  outDir: join(work, "results"),
  cacheDir,
  attempts,
  agent: startOnly,
});

const phases = ["workspace", "leakage", "sandbox", "agent", "scoring"] as const;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};
const p95 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
};
const totals = result.attempts.map((record) =>
  phases.reduce((sum, phase) => sum + (record.timings[phase] ?? 0), 0),
);
console.log(
  `attempts: ${result.attempts.length} on ${dataset.incidents.length} incidents (warm caches)`,
);
for (const phase of phases) {
  const values = result.attempts.map((record) => record.timings[phase] ?? 0);
  console.log(
    `${phase.padEnd(10)} median ${median(values).toFixed(0).padStart(5)} ms   p95 ${p95(values).toFixed(0).padStart(5)} ms`,
  );
}
console.log(
  `${"harness".padEnd(10)} median ${median(totals).toFixed(0).padStart(5)} ms   p95 ${p95(totals).toFixed(0).padStart(5)} ms   (agent phase = one bwrap start of \`true\`)`,
);
const wall = result.attempts.map((record) => record.durationMs);
console.log(
  `${"wall".padEnd(10)} median ${median(wall).toFixed(0).padStart(5)} ms   p95 ${p95(wall).toFixed(0).padStart(5)} ms   (whole attempt, files written)`,
);
await rm(work, { recursive: true, force: true });
