import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import type { FormatKind } from "../formats.js";

/** The repository root (tests run from the source tree). */
export const repositoryRoot = join(import.meta.dirname, "..", "..", "..", "..");
const root = repositoryRoot;

/**
 * Where the Python package `distdebug-schema` keeps its copy of the JSON Schema files
 * (`pnpm schema:generate` writes both copies).
 */
export const pythonSchemaDir = join(
  repositoryRoot,
  "python",
  "distdebug-schema",
  "src",
  "distdebug_schema",
  "schemas",
);

/** Where the valid examples of each format live (globs from the repository root). */
const seedGlobs: Record<FormatKind, string[]> = {
  incident: ["examples/dataset/*/incident.json", "datasets/catalog/kafka-1*/incident.json"],
  gold: ["examples/dataset/*/gold.json", "datasets/catalog/kafka-1*/gold.json"],
  diagnosis: [
    "examples/files/diagnosis.json",
    "examples/validate-diagnosis/agent-output/diagnosis.json",
    "packages/schema/fixtures/valid/diagnosis.json",
  ],
  trajectory: ["examples/files/trajectory.json"],
  diagnosis_scores: ["packages/schema/fixtures/valid/diagnosis_scores.json"],
  attempt: ["packages/schema/fixtures/valid/attempt.json"],
  run: [
    "packages/schema/fixtures/valid/run.json",
    "packages/schema/fixtures/valid/run-slurm-shard.json",
  ],
  summary: ["packages/schema/fixtures/valid/summary.json"],
  config: ["examples/files/config.yaml", "configs/*/*.yaml"],
  submission: ["packages/schema/fixtures/valid/submission.json"],
  dataset: ["examples/dataset/dataset.json", "datasets/catalog/dataset.json"],
  task: ["packages/schema/fixtures/valid/task.json"],
  repo_history: ["examples/dataset/*/repo/history.json"],
};

/**
 * Keys whose value is a record (any key, by design: `model.parameters`, the trajectory's
 * `extra`, `attempt.outputs`, ...): the strictness tests add no unknown key below them.
 */
export const openRecordKeys: ReadonlySet<string> = new Set([
  ...["extra", "parameters", "timings", "outputs", "packages", "grammars"],
  ...["metrics", "runToRun", "settings", "files", "env"],
]);

/** Is a path (of keys and indexes) at or below an open record? */
export function isInOpenRecord(path: readonly (string | number)[]): boolean {
  return path.some((key) => typeof key === "string" && openRecordKeys.has(key));
}

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The files matching `pattern` (`*` within one path segment) under the repository root. */
function expand(pattern: string): string[] {
  let found = [root];
  for (const segment of pattern.split("/")) {
    if (!segment.includes("*")) {
      found = found.map((dir) => join(dir, segment)).filter((path) => existsSync(path));
      continue;
    }
    const matcher = new RegExp(`^${segment.replaceAll(".", "\\.").replaceAll("*", ".*")}$`);
    found = found.flatMap((dir) =>
      readdirSync(dir)
        .filter((name) => matcher.test(name))
        .map((name) => join(dir, name)),
    );
  }
  return found;
}

/** The valid example files of `kind` in the repository, read (YAML configs parsed). */
export function exampleDocuments(kind: FormatKind): { file: string; document: Json }[] {
  const files = seedGlobs[kind].flatMap(expand).sort();
  return files.map((file) => {
    const text = readFileSync(file, "utf8");
    const document = (file.endsWith(".yaml") ? parseYaml(text) : JSON.parse(text)) as Json;
    return { file: relative(root, file), document };
  });
}
