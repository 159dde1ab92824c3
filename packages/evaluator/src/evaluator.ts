import type {
  DiagnosisBlock,
  DiagnosisScores,
  Gold,
  ScoreWarning,
  Trajectory,
} from "@distdebug/schema";
import { DistDebugError, trajectoryTurns } from "@distdebug/schema";
import type { AtomIndex, Definition } from "./atom-index.js";
import type { ReadFile } from "./directory-reader.js";
import { checkAborted, pacer } from "./internal/abort.js";
import { toAtomIndex } from "./internal/build-index.js";
import { FileStore, type LoadedFile } from "./internal/file-store.js";
import { goldTexts } from "./internal/gold-text.js";
import { IdentifierIndex, identifiersOf } from "./internal/identifier-index.js";
import { readDiagnosis } from "./internal/read-diagnosis.js";
import {
  type CountRows,
  RepositoryCounter,
  type RepositorySize,
} from "./internal/repository-size.js";
import { resolveGold } from "./internal/resolve-gold.js";
import { type ResolvedSpan, resolveSpan } from "./internal/resolve-span.js";
import { scoreSpans } from "./internal/score-spans.js";
import { searchPath } from "./internal/search-path.js";
import { isCallable } from "./internal/symbols.js";
import { type DEFAULT_LANGUAGES, type LanguageChoice, languageMap } from "./languages.js";
import { scoreMissingDiagnosis } from "./missing-diagnosis.js";
import {
  coverageBudget,
  type EvaluatorParameters,
  evaluatorParameters,
  fileBudget,
} from "./parameters.js";

/**
 * Options of {@link createEvaluator}. The scoring parameters (`coverageSpanLimit` 40,
 * `coverageSpanCount` 20, `coverageRowBudget` 400, `coverageRowFloor` 20, `coverageRepoShare`
 * 0.02, `coverageFileFloor` 3, `maxDiagnosisBlocks` 200) are recorded in every score.
 */
export interface EvaluatorOptions extends Partial<EvaluatorParameters> {
  /**
   * Reads a file of the pristine buggy revision by repository path; `undefined` when missing.
   * Each path is read once per evaluator (a read that throws is tried again on the next `score`).
   */
  readFile: ReadFile;
  /**
   * Lists the repository's files (for a git tree or a folder: the list it already has). The
   * repository's size R, which sets the coverage row budget and divides `repositoryShare`, is
   * the non-blank lines of the listed files in the evaluator's languages, read once and never
   * parsed. A `symbol` without a path is looked up in every listed source file that holds its
   * last name part as an identifier (a textual prefilter, then one parse per file, cached).
   * Without it R counts only the files of the gold blocks, and a bare symbol is looked up only
   * in the files the diagnosis names by path.
   */
  listFiles?: () => Promise<readonly string[]>;
  /** Extension to language, merged over {@link DEFAULT_LANGUAGES} (for example `{ ".h": "c" }`). */
  languages?: Readonly<Record<string, LanguageChoice>>;
  /** Absolute folders that mean the repository root in written paths. Default `["/workspace"]`. */
  workspaceRoots?: readonly string[];
}

/** What {@link Evaluator.score} takes. */
export interface ScoreInput {
  /**
   * The diagnosis: a validated `Diagnosis`, any value straight from an agent, or its JSON text.
   * Invalid input (the schema's rules, at most `maxDiagnosisBlocks` blocks) scores 0 with
   * `valid: false`.
   */
  diagnosis: unknown;
  /** The gold labels (a parsed `gold.json`). */
  gold: Pick<Gold, "incidentId" | "blocks">;
  /** Aborting stops scoring promptly with an `ABORTED` error. */
  signal?: AbortSignal;
  /**
   * The attempt's trajectory, for the search path (`search` in the scores; docs/guide/metrics.md).
   * `null`: the attempt has none (every block not named is `unknown`). Absent: no `search`.
   */
  trajectory?: Pick<Trajectory, "startedAt" | "steps"> | null;
  /** Why there is no diagnosis, when `diagnosis` is undefined (recorded in the warning). */
  missingReason?: string;
}

/** A scorer bound to one buggy revision. */
export interface Evaluator {
  /** The parameters every score records (defaults filled in). */
  readonly parameters: Readonly<EvaluatorParameters>;
  /** Scores one diagnosis. Never throws for bad spans or files (they become warnings); `ABORTED` when aborted. */
  score(input: ScoreInput): Promise<DiagnosisScores>;
  /** The atoms of one file, for tools and label review. Throws `FILE_NOT_FOUND` when missing. */
  atoms(path: string): Promise<AtomIndex>;
  /**
   * The named definitions of one file in source order (none for unsupported languages or a
   * failed parse). Throws `FILE_NOT_FOUND` when missing.
   */
  definitions(path: string): Promise<Definition[]>;
  /**
   * The repository's size R (non-blank lines of the listed source files) and the files
   * counted; without `listFiles`, of the given gold's files.
   */
  repositorySize(gold?: Pick<Gold, "blocks">, signal?: AbortSignal): Promise<RepositorySize>;
}

function incidentWarnings(
  diagnosis: { incidentId: string; blocks: readonly unknown[] },
  gold: Pick<Gold, "incidentId">,
): ScoreWarning[] {
  const warnings: ScoreWarning[] = [];
  if (diagnosis.incidentId !== gold.incidentId)
    warnings.push({
      code: "incident-mismatch",
      message: `the diagnosis is for ${diagnosis.incidentId}, the gold labels for ${gold.incidentId}`,
    });
  if (diagnosis.blocks.length === 0)
    warnings.push({ code: "empty-diagnosis", message: "the diagnosis names no code block" });
  return warnings;
}

/** The key of a block for resolving it once per pass (its reason does not matter). */
function blockKey(block: DiagnosisBlock): string {
  return JSON.stringify([block.path, block.startLine, block.endLine, block.symbol]);
}

/** What the scoring steps of one evaluator share. */
interface EvaluatorState {
  options: EvaluatorOptions;
  parameters: Readonly<EvaluatorParameters>;
  store: FileStore;
  counter: RepositoryCounter;
  /** Which listed source files hold an identifier: the prefilter of bare symbols. */
  identifiers: IdentifierIndex;
  /** The listed files, sorted (listed once; none without `listFiles` or when listing fails). */
  listFiles: () => Promise<string[]>;
  /** The size of the listed files, counted once (again after a failed read). */
  listedSize: Promise<RepositorySize & { complete: boolean }> | undefined;
  /** R kept by the tree's id (see {@link EvaluatorInternals}). */
  keptSize: EvaluatorInternals["keptSize"];
}

/**
 * Creates an evaluator over one buggy revision. Parsed files are cached by content hash, so
 * scoring many attempts parses each file once; the repository's size is counted once.
 *
 * @example
 * ```ts
 * const evaluator = createEvaluator({
 *   readFile: directoryReader("/cache/zookeeper@abc"),
 *   listFiles: () => listDirectoryFiles("/cache/zookeeper@abc"),
 * });
 * const scores = await evaluator.score({ diagnosis, gold });
 * console.log(scores.metrics.blockCoverage, scores.counts.coverageBudget);
 * ```
 */
export function createEvaluator(options: EvaluatorOptions): Evaluator {
  return evaluatorWith(options, {});
}

/**
 * What the scoring worker adds to an evaluator (not public): the rows counted by content, and
 * the repository size R kept by the tree's id (looked up before the tree is listed; a complete
 * count is handed back to keep).
 */
export interface EvaluatorInternals {
  countRows?: CountRows;
  keptSize?: {
    find(): Promise<RepositorySize | undefined>;
    keep(size: RepositorySize): Promise<void>;
  };
}

/** {@link createEvaluator} with the scoring worker's internals. */
export function evaluatorWith(options: EvaluatorOptions, internals: EvaluatorInternals): Evaluator {
  const languages = languageMap(options.languages);
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
  const state: EvaluatorState = {
    options,
    parameters: Object.freeze(evaluatorParameters(options)),
    store: new FileStore(options.readFile, languages, options.workspaceRoots ?? ["/workspace"]),
    counter: new RepositoryCounter(options.readFile, languages, internals.countRows),
    identifiers: new IdentifierIndex(options.readFile, languages, listFiles),
    listFiles,
    listedSize: undefined,
    keptSize: internals.keptSize,
  };
  // Scoring passes run one at a time: the store's per-pass reads must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    parameters: state.parameters,
    score(input) {
      const result = queue.then(() => scoreNow(state, input));
      queue = result.catch(() => undefined);
      return result;
    },
    async atoms(path) {
      const file = await existing(state.store, path);
      return toAtomIndex(file.path, file.index);
    },
    async definitions(path) {
      const file = await existing(state.store, path);
      return (state.store.symbolsOf(file)?.all() ?? []).map(
        ({ qualifiedName, kind, startLine, endLine }) => ({
          qualifiedName,
          kind,
          callable: isCallable(kind),
          startLine,
          endLine,
        }),
      );
    },
    repositorySize(gold, signal) {
      return repositorySize(state, gold ?? { blocks: [] }, signal);
    },
  };
}

/** R: of the listed files (counted once), or without a list of the gold's files. */
async function repositorySize(
  state: EvaluatorState,
  gold: Pick<Gold, "blocks">,
  signal?: AbortSignal,
): Promise<RepositorySize> {
  const { store, counter } = state;
  if (!state.options.listFiles) {
    const paths: string[] = [];
    for (const block of gold.blocks) {
      const resolution = await store.resolve(block.path);
      if (resolution.status === "file") paths.push(resolution.file.path);
    }
    const { rows, files } = await counter.total(paths, signal);
    return { rows, files };
  }
  state.listedSize ??= listedSize(state, signal);
  const pending = state.listedSize;
  const size = await pending.catch((error: unknown) => {
    if (state.listedSize === pending) state.listedSize = undefined;
    throw error;
  });
  // A total with a failed read is counted again next time.
  if (!size.complete && state.listedSize === pending) state.listedSize = undefined;
  return { rows: size.rows, files: size.files };
}

/**
 * R of the listed files: kept by the tree's id when the worker has it (no listing, no count),
 * else counted and, when complete, handed back to keep. Failing to look up or keep it only
 * costs the count.
 */
async function listedSize(
  state: EvaluatorState,
  signal: AbortSignal | undefined,
): Promise<RepositorySize & { complete: boolean }> {
  const { keptSize } = state;
  const kept = await keptSize?.find().catch(() => undefined);
  if (kept) return { rows: kept.rows, files: kept.files, complete: true };
  const size = await state.counter.total(await state.listFiles(), signal);
  if (size.complete) await keptSize?.keep({ rows: size.rows, files: size.files }).catch(() => {});
  return size;
}

/**
 * The files a symbol without a path is looked up in (EVALUATOR.md: anywhere in the repository,
 * never starting from the gold's files): the listed source files holding the last name part's
 * longest identifier (every listed source file when it has none). Without `listFiles` the
 * repository is unknown: the files the diagnosis names by path.
 */
async function bareSymbolPaths(
  state: EvaluatorState,
  lastPart: string,
  namedPaths: () => Promise<string[]>,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  if (!state.options.listFiles) return namedPaths();
  const longest = identifiersOf(lastPart).reduce<string | undefined>(
    (best, identifier) =>
      best === undefined || identifier.length > best.length ? identifier : best,
    undefined,
  );
  return state.identifiers.filesWith(longest, signal);
}

/** The repository paths the diagnosis's blocks name (sorted, existing files only). */
async function namedPathsOf(
  state: EvaluatorState,
  blocks: readonly DiagnosisBlock[],
): Promise<string[]> {
  const paths = new Set<string>();
  for (const block of blocks)
    if (block.path !== undefined) {
      const resolution = await state.store.resolve(block.path);
      if (resolution.status === "file") paths.add(resolution.file.path);
    }
  return [...paths].sort();
}

/** Resolves the diagnosis's blocks in listed order (each distinct block once). */
async function resolveSpans(
  state: EvaluatorState,
  blocks: readonly DiagnosisBlock[],
  signal: AbortSignal | undefined,
): Promise<{ resolved: ResolvedSpan; block: DiagnosisBlock }[]> {
  let named: Promise<string[]> | undefined;
  // Worked out once per pass, and only when a block needs it.
  const namedPaths = () => {
    named ??= namedPathsOf(state, blocks);
    return named;
  };
  const symbolPaths = (lastPart: string) => bareSymbolPaths(state, lastPart, namedPaths, signal);
  const byKey = new Map<string, ResolvedSpan>();
  const spans: { resolved: ResolvedSpan; block: DiagnosisBlock }[] = [];
  const pace = pacer(signal);
  for (const block of blocks) {
    const key = blockKey(block);
    let resolved = byKey.get(key);
    if (!resolved) {
      resolved = await resolveSpan(block, { store: state.store, symbolPaths });
      byKey.set(key, resolved);
    }
    spans.push({ block, resolved });
    const pausing = pace(1 + resolved.atoms.length);
    if (pausing) await pausing;
  }
  return spans;
}

/** One scoring pass, with the search path when a trajectory is given (or null). */
async function scoreNow(state: EvaluatorState, input: ScoreInput): Promise<DiagnosisScores> {
  const scores = await scoreDiagnosis(state, input);
  if (input.trajectory === undefined) return scores;
  const turns = input.trajectory ? trajectoryTurns(input.trajectory) : [];
  const golds = await goldTexts(state.store, state.options.readFile, input.gold);
  const reached = scores.goldBlocks.map((block) => block.reached);
  const { parameters, versions, ...rest } = scores;
  return { ...rest, search: searchPath(turns, golds, reached), parameters, versions };
}

/** Scores the diagnosis against the gold. */
async function scoreDiagnosis(state: EvaluatorState, input: ScoreInput): Promise<DiagnosisScores> {
  const { gold, signal } = input;
  const { parameters, store } = state;
  checkAborted(signal);
  if (input.diagnosis === undefined && input.missingReason !== undefined)
    return scoreMissingDiagnosis({ gold, reason: input.missingReason, parameters });
  const read = readDiagnosis(input.diagnosis, parameters.maxDiagnosisBlocks);
  if (!read.valid) return scoreMissingDiagnosis({ gold, reason: read.reason, parameters });
  const { diagnosis } = read;
  store.beginPass();
  const warnings = incidentWarnings(diagnosis, gold);
  const goldSide = await resolveGold(store, gold, warnings);
  const size = await repositorySize(state, gold, signal);
  const spans = await resolveSpans(state, diagnosis.blocks, signal);
  return scoreSpans({
    signal,
    incidentId: gold.incidentId,
    gold: goldSide,
    spans,
    warnings,
    parameters,
    coverageBudget: coverageBudget(parameters, size.rows),
    fileBudget: fileBudget(parameters, size.files),
    repositoryRows: size.rows,
    repositoryFiles: size.files,
  });
}

/** A file of the revision, or `FILE_NOT_FOUND`. */
async function existing(store: FileStore, path: string): Promise<LoadedFile> {
  const resolution = await store.resolve(path);
  if (resolution.status !== "file")
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `${path}: ${resolution.status === "outside" ? "outside the repository" : "no such file in the repository"}`,
      data: { path },
    });
  return resolution.file;
}
