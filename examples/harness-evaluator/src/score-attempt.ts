/**
 * Scoring inside your own harness: your agent wrote `diagnosis.json` (any shape it liked; the
 * evaluator validates it), you have the incident's `gold.json` and a checkout of the buggy
 * revision. One call gives the same `diagnosis_scores.json` the benchmark computes.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createEvaluator, directoryReader, listDirectoryFiles } from "@distdebug/evaluator";
import { type DiagnosisScores, parseGold, serialize, writeFileAtomic } from "@distdebug/schema";

/** Where your harness keeps one attempt's inputs and outputs. */
export interface AttemptFiles {
  /** A checkout of the repository at the buggy revision (never the agent's edited copy). */
  repositoryDir: string;
  /** The incident's gold.json (kept away from the agent). */
  goldFile: string;
  /** What the agent wrote. */
  diagnosisFile: string;
  /** Where to write diagnosis_scores.json; not written when omitted. */
  scoresFile?: string;
}

/** Scores one attempt and returns the scores (and writes them when asked). */
export async function scoreAttempt(files: AttemptFiles): Promise<DiagnosisScores> {
  const gold = parseGold(await readFile(files.goldFile, "utf8"), { source: files.goldFile });
  const evaluator = createEvaluator({
    readFile: directoryReader(files.repositoryDir),
    listFiles: () => listDirectoryFiles(files.repositoryDir),
  });
  // A missing or malformed diagnosis is not an exception: it scores 0 with `valid: false`.
  const diagnosis = await readFile(files.diagnosisFile, "utf8").catch(() => "");
  const scores = await evaluator.score({ diagnosis, gold });
  if (files.scoresFile) await writeFileAtomic(files.scoresFile, serialize(scores));
  return scores;
}

/** One line for your harness's log: `coverage 100.0, precision 66.7, file coverage 100.0`. */
export function scoreLine(scores: DiagnosisScores): string {
  const points = (share: number) => (share * 100).toFixed(1);
  return `coverage ${points(scores.metrics.blockCoverage)}, precision ${points(scores.metrics.blockPrecision)}, file coverage ${points(scores.metrics.fileCoverage)}`;
}

/** The folder layout this example's test builds; your harness has its own. */
export function attemptFilesIn(dir: string): AttemptFiles {
  return {
    repositoryDir: join(dir, "repo"),
    goldFile: join(dir, "gold.json"),
    diagnosisFile: join(dir, "out", "diagnosis.json"),
    scoresFile: join(dir, "out", "diagnosis_scores.json"),
  };
}
