/**
 * Blind strategies against the coverage rule: diagnoses made without reading the report, only
 * from the shape of the repository, scored on every example incident (and, with
 * `--source <dir> --gold <gold.json>`, on real source trees), printed beside the offline
 * baseline agent, which reads the report. Exits 1 when a blind strategy's mean block coverage
 * on the example dataset exceeds 10 (on the 0-100 scale).
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/blind.ts [--source dir --gold gold.json]...
 *
 * Strategies (each names at most `maxDiagnosisBlocks` blocks; only the first 20 can earn):
 * - stride: 20 single lines spread evenly over every non-blank source line;
 * - stride-budget: 20 spans of floor(B / 20) lines the same way (B: this repository's budget);
 * - tiles: 20 of the 40-line tiles of every file, spread evenly;
 * - files: every source file by path, smallest first;
 * - file-spray: every source file by path in path order (as a blind agent lists them);
 * - common-names: 20 common function names as bare symbols, without paths;
 * - bare-symbols: the 20 most frequent function names of this repository, without paths;
 * - definitions: every named definition by symbol, the first 20 spread evenly;
 * - largest-methods: the 20 largest methods and functions by their lines.
 * The line strategies run `blind-agent.mjs`, the program the CLI's test runs as a `command`
 * agent; the baseline runs its own program on the task folder, as `distdebug run` does.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { baselineProgramFile, DEFAULT_BASELINE_ROW_BUDGET } from "@distdebug/agents";
import { type IncidentTask, writeAgentTaskFolder } from "@distdebug/dataset";
import {
  coverageBudget,
  createEvaluator,
  DEFAULT_LANGUAGES,
  type Definition,
  directoryReader,
  type Evaluator,
  fileBudget,
  languageOf,
  listDirectoryFiles,
} from "@distdebug/evaluator";
import { type DiagnosisBlock, type Gold, parseGold } from "@distdebug/schema";
import { COMMON_FUNCTION_NAMES } from "@distdebug/test-utils";
import { exampleIncidents } from "./examples.js";

const { values } = parseArgs({
  options: {
    source: { type: "string", multiple: true, default: [] },
    gold: { type: "string", multiple: true, default: [] },
  },
});
if (values.source.length !== values.gold.length)
  throw new Error("give --source and --gold in pairs: one gold file per source tree");

const BLIND_AGENT = fileURLToPath(new URL("./blind-agent.mjs", import.meta.url));
const EXTENSIONS = Object.keys(DEFAULT_LANGUAGES).join(",");
/** Acceptance (issue 17): no blind strategy reaches more than this mean coverage (0-100). */
const BLIND_LIMIT = 10;
/**
 * Acceptance (issue 26): the strategies that name files or bare symbols blindly earn no more
 * mean file coverage than the mean file budget's share Bf / F. (Line strategies name lines,
 * and a line that reaches a block earns its file.)
 */
const FILE_BUDGET_STRATEGIES = new Set(["files", "file-spray", "common-names", "bare-symbols"]);

/** One repository to attack: a source tree at the buggy revision with its gold. */
interface Target {
  id: string;
  dir: string;
  files: string[];
  gold: Gold;
  task?: IncidentTask;
}

/** The `count` most frequent last name parts of callable definitions (ties by name). */
function frequentNames(definitions: readonly Definition[], count: number): string[] {
  const counts = new Map<string, number>();
  for (const definition of definitions) {
    if (!definition.callable) continue;
    const name = definition.qualifiedName.split(/::|\./).at(-1) as string;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([name]) => name);
}

/** Spans a strategy may name: the first 20 earn, the rest only cost precision. */
const MAX_BLOCKS = 200;

/** Runs a `command`-style program (env DISTDEBUG_*) and reads the diagnosis it wrote. */
async function runProgram(
  args: string[],
  env: Record<string, string>,
  scratch: string,
): Promise<unknown> {
  const output = await mkdtemp(join(scratch, "output-"));
  const result = spawnSync(process.execPath, args, {
    env: { ...process.env, ...env, DISTDEBUG_OUTPUT: output },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`${args.join(" ")}: ${result.stderr}`);
  return JSON.parse(await readFile(join(output, "diagnosis.json"), "utf8"));
}

function diagnosisOf(target: Target, blocks: DiagnosisBlock[]) {
  return {
    format: "distdebug.diagnosis/1",
    incidentId: target.gold.incidentId,
    blocks: blocks.slice(0, MAX_BLOCKS),
  };
}

/** Definitions of every source file with their paths. */
async function allDefinitions(
  evaluator: Evaluator,
  target: Target,
): Promise<(Definition & { path: string })[]> {
  const found: (Definition & { path: string })[] = [];
  for (const path of target.files) {
    if (languageOf(path, DEFAULT_LANGUAGES) === "text") continue;
    for (const definition of await evaluator.definitions(path)) found.push({ ...definition, path });
  }
  return found;
}

/** `count` items spread evenly first, then the others in order. */
function spreadFirst<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const first = Array.from(
    { length: count },
    (_, k) => Math.floor(((k + 0.5) * items.length) / count) as number,
  );
  const chosen = new Set(first);
  return [...first.map((at) => items[at] as T), ...items.filter((_, at) => !chosen.has(at))];
}

/** The diagnoses of every blind strategy on one target. */
async function blindDiagnoses(
  evaluator: Evaluator,
  target: Target,
  budget: number,
  scratch: string,
): Promise<Record<string, unknown>> {
  const env = { DISTDEBUG_WORKSPACE: target.dir, DISTDEBUG_INCIDENT_ID: target.gold.incidentId };
  const line = (strategy: string, width: number) =>
    runProgram([BLIND_AGENT, strategy, EXTENSIONS, String(width)], env, scratch);
  const definitions = await allDefinitions(evaluator, target);
  const sizes = new Map<string, number>();
  for (const path of target.files)
    if (languageOf(path, DEFAULT_LANGUAGES) !== "text")
      sizes.set(path, (await evaluator.atoms(path)).significantLines);
  const methods = definitions
    .filter((definition) => definition.callable)
    .sort((a, b) => b.endLine - b.startLine - (a.endLine - a.startLine));
  return {
    stride: await line("stride", 1),
    "stride-budget": await line("stride", Math.max(1, Math.floor(budget / 20))),
    tiles: await line("tiles", 40),
    files: diagnosisOf(
      target,
      [...sizes.keys()]
        .sort((a, b) => (sizes.get(a) as number) - (sizes.get(b) as number))
        .map((path) => ({ path })),
    ),
    "file-spray": diagnosisOf(
      target,
      [...sizes.keys()].sort().map((path) => ({ path })),
    ),
    "common-names": diagnosisOf(
      target,
      COMMON_FUNCTION_NAMES.map((symbol) => ({ symbol })),
    ),
    "bare-symbols": diagnosisOf(
      target,
      frequentNames(definitions, 20).map((symbol) => ({ symbol })),
    ),
    definitions: diagnosisOf(
      target,
      spreadFirst(definitions, 20).map(({ path, qualifiedName }) => ({
        path,
        symbol: qualifiedName,
      })),
    ),
    "largest-methods": diagnosisOf(
      target,
      methods.slice(0, 20).map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
    ),
  };
}

/** The baseline agent's diagnosis: its program on the task folder, as `distdebug run` runs it. */
async function baselineDiagnosis(target: Target, task: IncidentTask, scratch: string) {
  const taskDir = join(scratch, `task-${target.id}`);
  await mkdir(taskDir, { recursive: true });
  await writeAgentTaskFolder(task, taskDir);
  return runProgram(
    [baselineProgramFile],
    {
      DISTDEBUG_TASK: taskDir,
      DISTDEBUG_WORKSPACE: target.dir,
      DISTDEBUG_INCIDENT_ID: target.gold.incidentId,
      DISTDEBUG_ROW_BUDGET: String(DEFAULT_BASELINE_ROW_BUDGET),
    },
    scratch,
  );
}

/** One strategy's scores on one target (0-100), with the file budget's share Bf / F. */
interface Row {
  coverage: number;
  fileCoverage: number;
  precision: number;
  fileShare: number;
}
type Scores = Record<string, Row>;

/** Scores every strategy (and the baseline, when there is a task) on one target. */
async function attack(target: Target, scratch: string): Promise<Scores> {
  const evaluator = createEvaluator({
    readFile: directoryReader(target.dir),
    listFiles: async () => target.files,
  });
  const size = await evaluator.repositorySize();
  const budget = coverageBudget(evaluator.parameters, size.rows);
  const diagnoses = await blindDiagnoses(evaluator, target, budget, scratch);
  if (target.task) diagnoses.baseline = await baselineDiagnosis(target, target.task, scratch);
  const scores: Scores = {};
  const cells: string[] = [];
  for (const [name, diagnosis] of Object.entries(diagnoses)) {
    const result = await evaluator.score({ diagnosis, gold: target.gold });
    if (!result.valid) throw new Error(`${target.id} ${name}: ${result.warnings[0]?.message}`);
    scores[name] = {
      coverage: 100 * result.metrics.blockCoverage,
      fileCoverage: 100 * result.metrics.fileCoverage,
      precision: 100 * result.metrics.blockPrecision,
      fileShare: (100 * result.counts.fileBudget) / Math.max(1, result.counts.repositoryFiles),
    };
    cells.push(
      `${name} ${scores[name].coverage.toFixed(0)}/${scores[name].fileCoverage.toFixed(0)}`,
    );
  }
  const files = fileBudget(evaluator.parameters, size.files);
  console.log(
    `${target.id.padEnd(18)} R ${String(size.rows).padStart(7)}  B ${String(budget).padStart(3)}  F ${String(size.files).padStart(5)}  Bf ${String(files).padStart(3)}  gold blocks ${target.gold.blocks.length}  block/file coverage: ${cells.join(", ")}`,
  );
  return scores;
}

/** Prints the mean scores of each strategy; returns the means. */
function printMeans(title: string, all: Scores[]): Record<string, Row> {
  const names = [...new Set(all.flatMap((scores) => Object.keys(scores)))];
  const means: Record<string, Row> = {};
  console.log(`\n${title} (${all.length} targets), means on the 0-100 scale:`);
  console.log(
    `  ${"strategy".padEnd(16)} ${"block cov".padStart(9)} ${"file cov".padStart(9)} ${"Bf/F".padStart(6)} ${"precision".padStart(10)}`,
  );
  for (const name of names) {
    const rows = all.map((scores) => scores[name]).filter((row) => row !== undefined);
    const mean = (pick: (row: Row) => number) =>
      rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;
    const row: Row = {
      coverage: mean((r) => r.coverage),
      fileCoverage: mean((r) => r.fileCoverage),
      precision: mean((r) => r.precision),
      fileShare: mean((r) => r.fileShare),
    };
    means[name] = row;
    console.log(
      `  ${name.padEnd(16)} ${row.coverage.toFixed(1).padStart(9)} ${row.fileCoverage.toFixed(1).padStart(9)} ${row.fileShare.toFixed(1).padStart(6)} ${row.precision.toFixed(1).padStart(10)}`,
    );
  }
  return means;
}

async function main(): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), "distdebug-blind-"));
  const { root, incidents } = await exampleIncidents();
  try {
    const examples: Scores[] = [];
    for (const incident of incidents) examples.push(await attack(incident, scratch));
    const means = printMeans("example dataset", examples);
    const real: Scores[] = [];
    for (const [at, source] of values.source.entries()) {
      const dir = resolve(source);
      const gold = parseGold(await readFile(resolve(values.gold[at] as string)));
      const files = await listDirectoryFiles(dir);
      real.push(await attack({ id: gold.incidentId, dir, files, gold }, scratch));
    }
    if (real.length > 0) printMeans("real source", real);
    const over = Object.entries(means).filter(
      ([name, row]) =>
        name !== "baseline" &&
        (row.coverage > BLIND_LIMIT ||
          (FILE_BUDGET_STRATEGIES.has(name) && row.fileCoverage > row.fileShare)),
    );
    if (over.length === 0) return 0;
    console.log(
      `\nFAIL: blind strategies over ${BLIND_LIMIT} mean block coverage or over the file budget's share in file coverage on the example dataset: ${over.map(([name, row]) => `${name} ${row.coverage.toFixed(1)}/${row.fileCoverage.toFixed(1)} (Bf/F ${row.fileShare.toFixed(1)})`).join(", ")}`,
    );
    return 1;
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
