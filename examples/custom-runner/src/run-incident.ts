/**
 * A custom runner in about a hundred lines, on the same parts `distdebug run` uses:
 * `prepareWorkspace` (an anonymized one-commit copy of the buggy revision), `checkLeakage`,
 * `createSandbox` (bubblewrap: no network, the workspace at /workspace, the task read-only
 * at /task, the agent's output at /output) and the evaluator on a pristine copy.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createEvaluator, directoryReader, listDirectoryFiles } from "@distdebug/evaluator";
import { createSandbox } from "@distdebug/sandbox";
import {
  type DiagnosisScores,
  DistDebugError,
  type Gold,
  serialize,
  type Trajectory,
  type TrajectoryStep,
  writeFileAtomic,
} from "@distdebug/schema";
import { checkLeakage, prepareWorkspace } from "@distdebug/workspace";

/** One incident as this runner sees it. */
export interface IncidentInput {
  id: string;
  /** A git repository (path or URL) and the buggy commit. */
  repository: string;
  buggyCommit: string;
  /** The incident report the agent reads at /task/report.md. */
  report: string;
  gold: Pick<Gold, "incidentId" | "blocks" | "needles">;
}

/** What one attempt produced. */
export interface AttemptOutcome {
  trajectory: Trajectory;
  scores: DiagnosisScores;
}

/**
 * Runs one attempt: the agent is a list of shell commands (a stand-in for your model loop),
 * each run in the sandbox; it must leave /output/diagnosis.json. Writes trajectory.json and
 * diagnosis_scores.json into `outDir`.
 */
export async function runIncident(options: {
  incident: IncidentInput;
  agentCommands: readonly string[];
  workDir: string;
  outDir: string;
}): Promise<AttemptOutcome> {
  const { incident, workDir } = options;
  const workspace = join(workDir, "workspace");
  const pristine = join(workDir, "pristine");
  const task = join(workDir, "task");
  const output = join(workDir, "output");
  const needles = incident.gold.needles ?? [];
  for (const dir of [workspace, pristine]) {
    await prepareWorkspace({
      source: incident.repository,
      commit: incident.buggyCommit,
      dir,
      needles,
      cacheDir: false,
    });
  }
  const leakage = await checkLeakage({ dir: workspace, needles });
  if (!leakage.clean)
    throw new DistDebugError({
      code: "WORKSPACE_LEAK",
      message: `${incident.id}: the workspace leaks: ${leakage.findings.map((finding) => finding.kind).join(", ")}`,
    });
  await mkdir(task, { recursive: true });
  await mkdir(output, { recursive: true });
  await writeFile(join(task, "report.md"), incident.report);

  const steps: TrajectoryStep[] = [{ type: "message", role: "user", content: incident.report }];
  const started = Date.now();
  const sandbox = await createSandbox({ workspace, task, output });
  try {
    for (const command of options.agentCommands) {
      const result = await sandbox.exec(command, { timeoutMs: 20_000 });
      steps.push({
        type: "command",
        command,
        exitCode: result.exitCode,
        output: result.stdout + result.stderr,
      });
    }
  } finally {
    await sandbox.dispose();
  }
  const trajectory: Trajectory = {
    format: "distdebug.trajectory/1",
    incidentId: incident.id,
    agent: { name: "example-custom-runner", version: "0.0.0" },
    exitStatus: "submitted",
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null },
    steps,
    durationMs: Date.now() - started,
  };
  // Score what the agent wrote against the gold, on the pristine copy (the agent may have edited its own).
  const diagnosis = await readFile(join(output, "diagnosis.json"), "utf8").catch(() => "");
  // The file list gives the repository's size, which sets the coverage row budget.
  const evaluator = createEvaluator({
    readFile: directoryReader(pristine),
    listFiles: () => listDirectoryFiles(pristine),
  });
  const scores = await evaluator.score({ diagnosis, gold: incident.gold });
  await writeFileAtomic(join(options.outDir, "trajectory.json"), serialize(trajectory));
  await writeFileAtomic(join(options.outDir, "diagnosis.json"), diagnosis);
  await writeFileAtomic(join(options.outDir, "diagnosis_scores.json"), serialize(scores));
  return { trajectory, scores };
}
