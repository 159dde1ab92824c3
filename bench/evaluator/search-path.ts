/**
 * Cost of the search path on a large trajectory: `--turns` turns (default 200) whose outputs
 * total `--mb` MB (default 32, the trajectory cap), of source-like lines, one of them holding a
 * gold block. Scores the same diagnosis with and without the trajectory and prints the extra
 * wall-clock time and the throughput of the scan (it is linear in the outputs' size); not a test.
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/search-path.ts [--mb 32]
 */
import { parseArgs } from "node:util";
import { createEvaluator, memoryReader } from "@distdebug/evaluator";
import type { Trajectory, TrajectoryStep } from "@distdebug/schema";

const { values } = parseArgs({
  options: { mb: { type: "string", default: "32" }, turns: { type: "string", default: "200" } },
});
const turns = Number(values.turns);
const perTurn = Math.floor((Number(values.mb) * 1024 * 1024) / turns);
const source = Array.from({ length: 400 }, (_, i) => `    int value${i} = compute(${i}, state);`);
const file = `class Big {\n  void run() {\n${source.join("\n")}\n  }\n}\n`;
const gold = {
  incidentId: "bench-1",
  blocks: [{ path: "src/Big.java", startLine: 203, endLine: 206 }],
};
const diagnosis = {
  format: "distdebug.diagnosis/1",
  incidentId: "bench-1",
  blocks: [{ path: "src/Big.java", startLine: 10, endLine: 12 }],
};
const filler = (n: number) => {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < n; i++) {
    const line = `${String(i).padStart(6)}\tlog line ${i} of an unrelated output, with some text`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
};
const steps: TrajectoryStep[] = [];
for (let t = 0; t < turns; t++) {
  const output =
    t === turns - 1 ? `${filler(perTurn)}\n${source.slice(199, 205).join("\n")}` : filler(perTurn);
  steps.push(
    { type: "message", role: "assistant", content: `turn ${t}` },
    { type: "command", command: `cat log-${t}`, exitCode: 0, output },
  );
}
const trajectory: Pick<Trajectory, "steps"> = { steps };
const evaluator = createEvaluator({ readFile: memoryReader({ "src/Big.java": file }) });
await evaluator.score({ diagnosis, gold });
const time = async (withTrajectory: boolean) => {
  const wall = performance.now();
  const scores = await evaluator.score({
    diagnosis,
    gold,
    ...(withTrajectory ? { trajectory } : {}),
  });
  return { seconds: (performance.now() - wall) / 1000, scores };
};
const plain = await time(false);
const searched = await time(true);
const mb = (perTurn * turns) / 1024 / 1024;
console.log(
  `outputs ${mb.toFixed(1)} MB in ${turns} turns: scoring ${plain.seconds.toFixed(3)} s without the trajectory, ${searched.seconds.toFixed(3)} s with it (${(mb / Math.max(1e-9, searched.seconds - plain.seconds)).toFixed(1)} MB/s of outputs); first causal block at turn ${searched.scores.search?.firstCausalBlockStep}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
);
