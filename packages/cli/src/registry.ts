import type { Command } from "./command.js";

/** One entry of the command table: its words, a one-line summary, and a lazy loader. */
export interface CommandEntry {
  /** The words that select it, for example `["workspace", "prepare"]`. */
  words: string[];
  summary: string;
  load: () => Promise<{ default: Command }>;
}

/**
 * Every command of `distdebug`. Each module loads only when its command runs, so
 * `distdebug validate` does not pay for tree-sitter or the sandbox.
 */
export const commandTable: CommandEntry[] = [
  {
    words: ["validate"],
    summary: "Validate DistDebug files (any kind) and mini-swe-agent trajectories",
    load: () => import("./commands/validate.js"),
  },
  {
    words: ["evaluate"],
    summary:
      "Score a diagnosis against gold blocks on a source tree (prints diagnosis_scores JSON)",
    load: () => import("./commands/evaluate.js"),
  },
  {
    words: ["atoms"],
    summary: "Print a source file's atoms with their rows, for reviewing labels",
    load: () => import("./commands/atoms.js"),
  },
  {
    words: ["label", "suggest"],
    summary: "Propose gold blocks from a buggy and a fixed tree",
    load: () => import("./commands/label-suggest.js"),
  },
  {
    words: ["workspace", "prepare"],
    summary: "Prepare an anonymized one-commit workspace at a revision",
    load: () => import("./commands/workspace-prepare.js"),
  },
  {
    words: ["leakage-check"],
    summary: "Scan a workspace for the issue key, the fix commit and the fix's lines",
    load: () => import("./commands/leakage-check.js"),
  },
  {
    words: ["sandbox", "exec"],
    summary: "Run a command under the sandbox policy (for debugging a policy)",
    load: () => import("./commands/sandbox-exec.js"),
  },
  {
    words: ["sandbox", "probe"],
    summary: "Tell which sandbox backends work on this host, and why not",
    load: () => import("./commands/sandbox-probe.js"),
  },
  {
    words: ["dataset", "list"],
    summary: "List a dataset's incidents",
    load: () => import("./commands/dataset-list.js"),
  },
  {
    words: ["dataset", "show"],
    summary: "Show one incident of a dataset",
    load: () => import("./commands/dataset-show.js"),
  },
  {
    words: ["dataset", "check"],
    summary: "Validate a dataset folder and print its counts",
    load: () => import("./commands/dataset-check.js"),
  },
  {
    words: ["dataset", "stats"],
    summary: "Print a dataset's shape beside the benchmark paper's",
    load: () => import("./commands/dataset-stats.js"),
  },
  {
    words: ["dataset", "verify"],
    summary: "Check a dataset's labeled incidents against their real repositories",
    load: () => import("./commands/dataset-verify.js"),
  },
  {
    words: ["run"],
    summary: "Run an agent on incidents: workspace, sandbox, agent, scoring, resumable",
    load: () => import("./commands/run.js"),
  },
  {
    words: ["merge"],
    summary: "Merge results folders of one run (its shards) and score the result",
    load: () => import("./commands/merge.js"),
  },
  {
    words: ["k8s", "job"],
    summary: "Print a Kubernetes Indexed Job that runs a benchmark in shards",
    load: () => import("./commands/k8s-job.js"),
  },
  {
    words: ["slurm", "script"],
    summary: "Print an sbatch job array script that runs a benchmark in shards",
    load: () => import("./commands/slurm-script.js"),
  },
  {
    words: ["score"],
    summary: "Rescore every attempt of a results folder and write summary.json",
    load: () => import("./commands/score.js"),
  },
  {
    words: ["report"],
    summary: "Leaderboard table and static HTML report of results folders",
    load: () => import("./commands/report.js"),
  },
  {
    words: ["package"],
    summary: "Package a results folder as a submission archive",
    load: () => import("./commands/package.js"),
  },
  {
    words: ["verify"],
    summary: "Verify a submission archive's checksums and rescore it",
    load: () => import("./commands/verify.js"),
  },
];

/** Finds the entry whose words begin `argv`, preferring the longest match. */
export function findCommand(argv: readonly string[]): CommandEntry | undefined {
  let best: CommandEntry | undefined;
  for (const entry of commandTable) {
    if (entry.words.every((word, index) => argv[index] === word)) {
      if (!best || entry.words.length > best.words.length) best = entry;
    }
  }
  return best;
}
