import type { DiagnosisScores, Gold, ScoreWarning } from "@distdebug/schema";
import { DistDebugError } from "@distdebug/schema";
import type { AtomIndex } from "./atom-index.js";
import type { ReadFile } from "./directory-reader.js";
import { toAtomIndex } from "./internal/build-index.js";
import { FileStore } from "./internal/file-store.js";
import { readDiagnosis } from "./internal/read-diagnosis.js";
import { atomsOfRange, type ResolvedSpan, resolveSpan } from "./internal/resolve-span.js";
import { type GoldSide, scoreSpans } from "./internal/score-spans.js";
import { DEFAULT_LANGUAGES, type LanguageChoice, languageOf } from "./languages.js";
import { scoreMissingDiagnosis } from "./missing-diagnosis.js";
import { DEFAULT_COVERAGE_ROW_BUDGET, DEFAULT_COVERAGE_SPAN_LIMIT } from "./version.js";

/** Options of {@link createEvaluator}. */
export interface EvaluatorOptions {
  /**
   * Reads a file of the pristine buggy revision by repository path; `undefined` when missing.
   * Each path is read once per evaluator (a read that throws is tried again on the next `score`).
   */
  readFile: ReadFile;
  /**
   * Lists the repository's files. When given, `repositoryShare` divides by the significant
   * rows of every source file of the seven languages (each parsed once), and a `symbol`
   * without a path is also looked up in files whose name matches one of its parts.
   * Default: only the files the gold blocks and the diagnosis name.
   */
  listFiles?: () => Promise<readonly string[]>;
  /** Extension to language, merged over {@link DEFAULT_LANGUAGES} (for example `{ ".h": "c" }`). */
  languages?: Readonly<Record<string, LanguageChoice>>;
  /** A span of more significant rows earns no coverage. Default 40. */
  coverageSpanLimit?: number;
  /** Coverage-earning spans, in listed order, may total this many rows. Default 400. */
  coverageRowBudget?: number;
  /** Absolute folders that mean the repository root in written paths. Default `["/workspace"]`. */
  workspaceRoots?: readonly string[];
}

/** What {@link Evaluator.score} takes. */
export interface ScoreInput {
  /**
   * The diagnosis: a validated `Diagnosis`, any value straight from an agent, or its JSON text.
   * Invalid input scores 0 with `valid: false`; bad blocks become invalid spans.
   */
  diagnosis: unknown;
  /** The gold labels (a parsed `gold.json`). */
  gold: Pick<Gold, "incidentId" | "blocks">;
}

/** A scorer bound to one buggy revision. */
export interface Evaluator {
  /** Scores one diagnosis. Never throws for bad spans or files: they become warnings. */
  score(input: ScoreInput): Promise<DiagnosisScores>;
  /** The atoms of one file, for tools and label review. Throws `FILE_NOT_FOUND` when missing. */
  atoms(path: string): Promise<AtomIndex>;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `${name}: expected a whole number >= 1, found ${value}`,
      data: { name, value },
    });
  return value;
}

function stem(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return (dot > 0 ? name.slice(0, dot) : name).toLowerCase();
}

/**
 * Creates an evaluator over one buggy revision. Parsed files are cached by content hash, so
 * scoring many attempts parses each file once.
 *
 * @example
 * ```ts
 * const evaluator = createEvaluator({ readFile: directoryReader("/cache/zookeeper@abc") });
 * const scores = await evaluator.score({ diagnosis, gold });
 * console.log(scores.metrics.blockCoverage, scores.metrics.blockPrecision);
 * ```
 */
export function createEvaluator(options: EvaluatorOptions): Evaluator {
  const languages = { ...DEFAULT_LANGUAGES, ...(options.languages ?? {}) };
  const parameters = {
    coverageSpanLimit: positiveInteger(
      options.coverageSpanLimit,
      DEFAULT_COVERAGE_SPAN_LIMIT,
      "coverageSpanLimit",
    ),
    coverageRowBudget: positiveInteger(
      options.coverageRowBudget,
      DEFAULT_COVERAGE_ROW_BUDGET,
      "coverageRowBudget",
    ),
  };
  const store = new FileStore(
    options.readFile,
    languages,
    options.workspaceRoots ?? ["/workspace"],
  );
  let listed: Promise<string[]> | undefined;
  const listFiles = () => {
    listed ??= options.listFiles
      ? options.listFiles().then(
          (files) => [...files].sort(),
          () => [],
        )
      : Promise.resolve([]);
    return listed;
  };
  let repositoryTotal: Promise<{ rows: number; files: Set<string> }> | undefined;
  const repository = () => {
    repositoryTotal ??= (async () => {
      const files = new Set<string>();
      let rows = 0;
      for (const path of await listFiles()) {
        if (languageOf(path, languages) === "text") continue;
        const result = await store.load(path);
        if (result.status !== "file") continue;
        files.add(path);
        rows += result.file.index.significantLines;
      }
      return { rows, files };
    })();
    return repositoryTotal;
  };
  // Scoring passes run one at a time: the store's per-pass reads must not interleave.
  let queue: Promise<unknown> = Promise.resolve();

  async function scoreNow(input: ScoreInput): Promise<DiagnosisScores> {
    const { gold } = input;
    const diagnosis = readDiagnosis(input.diagnosis);
    if (!diagnosis.valid)
      return scoreMissingDiagnosis({ gold, reason: diagnosis.reason, parameters });
    store.beginPass();
    const warnings: ScoreWarning[] = [];
    if (diagnosis.incidentId !== gold.incidentId)
      warnings.push({
        code: "incident-mismatch",
        message: `the diagnosis is for ${diagnosis.incidentId}, the gold labels for ${gold.incidentId}`,
      });
    if (diagnosis.blocks.length === 0)
      warnings.push({ code: "empty-diagnosis", message: "the diagnosis names no code block" });
    // Gold side.
    const goldSide: GoldSide[] = [];
    for (const [index, block] of gold.blocks.entries()) {
      const resolution = await store.resolve(block.path);
      if (resolution.status !== "file") {
        warnings.push({
          code: resolution.status === "outside" ? "path-outside-repository" : "missing-file",
          message: `gold block ${index} (${block.path}): the file is not in the revision being scored`,
          goldBlock: index,
          path: block.path,
        });
        goldSide.push({ block, path: block.path, atoms: [], rows: [] });
        continue;
      }
      const file = resolution.file;
      const end = Math.min(block.endLine, file.index.lineCount);
      const { ids } =
        block.startLine <= end ? atomsOfRange(file.index, block.startLine, end) : { ids: [] };
      if (ids.length === 0)
        warnings.push({
          code: "no-atoms",
          message: `gold block ${index} (${block.path}:${block.startLine}-${block.endLine}) resolves to no atom`,
          goldBlock: index,
          path: file.path,
        });
      const base = file.number * 16_777_216;
      const rows: number[] = [];
      for (let line = block.startLine; line <= end; line++)
        if ((file.index.owner[line] as number) >= 0) rows.push(base + line);
      goldSide.push({ block, path: file.path, atoms: ids.map((id) => base + id), rows });
    }
    // Predicted side.
    const symbolPaths = async () => {
      const paths = new Set<string>();
      for (const side of goldSide) paths.add(side.path);
      for (const listedBlock of diagnosis.blocks)
        if (listedBlock.ok && listedBlock.block.path !== undefined) {
          const resolution = await store.resolve(listedBlock.block.path);
          if (resolution.status === "file") paths.add(resolution.file.path);
        }
      const parts = new Set(
        diagnosis.blocks.flatMap((item) =>
          item.ok && item.block.symbol
            ? item.block.symbol.split(/[^A-Za-z0-9_$]+/).map((p) => p.toLowerCase())
            : [],
        ),
      );
      for (const path of await listFiles()) if (parts.has(stem(path))) paths.add(path);
      return [...paths].sort();
    };
    const spans: { resolved: ResolvedSpan; block: unknown }[] = [];
    for (const item of diagnosis.blocks) {
      if (!item.ok) {
        spans.push({
          block: item.raw,
          resolved: {
            kind: "invalid",
            path: null,
            definitions: [],
            atoms: [],
            atomRows: [],
            rows: 0,
            namedRows: [],
            files: [],
            phantom: 1,
            warnings: [
              {
                code: "invalid-span",
                message: `not a valid block (${item.reason}); counted as one false-positive atom`,
              },
            ],
          },
        });
        continue;
      }
      spans.push({
        block: item.block,
        resolved: await resolveSpan(item.block, { store, symbolPaths }),
      });
    }
    const total = await repository();
    let repositoryRows = total.rows;
    let repositoryFiles = total.files.size;
    const touched = new Map<string, number>();
    for (const side of goldSide) touched.set(side.path, 0);
    for (const span of spans) for (const path of span.resolved.files) touched.set(path, 0);
    for (const path of [...touched.keys()].sort()) {
      if (total.files.has(path)) continue;
      const result = await store.load(path);
      if (result.status !== "file") continue;
      repositoryRows += result.file.index.significantLines;
      repositoryFiles++;
    }
    return scoreSpans({
      incidentId: gold.incidentId,
      gold: goldSide,
      spans,
      warnings,
      parameters,
      repositoryRows,
      repositoryFiles,
    });
  }

  return {
    score(input) {
      const result = queue.then(() => scoreNow(input));
      queue = result.catch(() => undefined);
      return result;
    },
    async atoms(path) {
      const resolution = await store.resolve(path);
      if (resolution.status !== "file")
        throw new DistDebugError({
          code: "FILE_NOT_FOUND",
          message: `${path}: ${resolution.status === "outside" ? "outside the repository" : "no such file in the repository"}`,
          data: { path },
        });
      return toAtomIndex(resolution.file.path, resolution.file.index);
    },
  };
}
