import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { type DiagnosisScores, DistDebugError, errorMessage } from "@distdebug/schema";
import type { ReadFile } from "./directory-reader.js";
import type { ScoreInput } from "./evaluator.js";
import { checkAborted } from "./internal/abort.js";
import type { RepositorySize } from "./internal/repository-size.js";
import { rowCountsIn } from "./internal/row-counts.js";
import type {
  HostAnswer,
  HostRequest,
  ScoreRequest,
  ScoreWorkerData,
  ScoreWorkerReply,
} from "./internal/score-protocol.js";
import { keepTreeSize, knownTreeSize, treeSizeKeys } from "./internal/tree-sizes.js";
import type { LanguageChoice } from "./languages.js";
import { scoreMissingDiagnosis } from "./missing-diagnosis.js";
import { type EvaluatorParameters, evaluatorParameters } from "./parameters.js";

/**
 * Default `deadlineMs` of {@link createDirectoryScorer}: 10 minutes. Far above what a valid
 * diagnosis needs (its at most 200 blocks of at most 1,000-character names resolve once each;
 * the worst, a bare common name on a 10,000-file repository, parses each file once), so the
 * deadline never decides the score of a valid diagnosis on a slow machine.
 */
export const DEFAULT_SCORING_DEADLINE_MS = 600_000;

/** An idle worker is stopped after this long (its parse cache goes with it). */
const IDLE_MS = 60_000;

/**
 * A source tree read by the scorer's own thread (a git tree read from the object store): the
 * worker asks it for each file it needs.
 */
export interface TreeFiles {
  readFile: ReadFile;
  /** Every file of the tree (what the repository's size counts). */
  listFiles(): Promise<readonly string[]>;
  /**
   * The listed files by content, when the tree has content ids (a git tree): the repository's
   * size R is then counted once per distinct content for the whole process (and kept in
   * `countCacheDir`), not once per file and incident. Without it every listed source file is
   * read through `readFile` and counted.
   */
  contents?: TreeContents;
}

/**
 * The files of a tree named by content keys: git blob ids, with a `:variant` suffix when the
 * bytes `read` gives are not the blob's own (a checkout's line endings). Equal keys name equal
 * bytes across every tree of the process; the rows counted from them are those `readFile`'s
 * bytes have (`read` may leave out what only changes bytes within a line, such as needle
 * scrubbing: nothing read this way is shown to anyone, only its non-blank lines are counted).
 */
export interface TreeContents {
  /**
   * The tree's id and the rules that make its listing and keys from it, when equal answers
   * always mean equal `keys` (git's root tree id): R is then kept by tree in `countCacheDir`
   * (checked like every count), so a tree counted once is neither listed nor counted again.
   */
  tree?(): Promise<{ id: string; rules: string }>;
  /** The content key of each listed regular file (missing for one it has none for). */
  keys(): Promise<ReadonlyMap<string, string>>;
  /** The bytes of the given keys, read in one batch. */
  read(keys: readonly string[]): Promise<ReadonlyMap<string, Uint8Array>>;
}

/** Options of {@link createDirectoryScorer}. */
export interface DirectoryScorerOptions extends Partial<EvaluatorParameters> {
  /**
   * The source tree at the buggy revision (scoring reads it, never an agent's copy): a folder
   * the worker reads, or {@link TreeFiles} read on the calling thread.
   */
  root: string | TreeFiles;
  /** Extension to language, merged over the defaults (as in `createEvaluator`). */
  languages?: Readonly<Record<string, LanguageChoice>>;
  /** Absolute folders that mean the repository root in written paths. Default `["/workspace"]`. */
  workspaceRoots?: readonly string[];
  /** The longest one diagnosis may take to score. Default {@link DEFAULT_SCORING_DEADLINE_MS}. */
  deadlineMs?: number;
  /**
   * A folder for the row counts of a {@link TreeContents} tree, kept across processes: one
   * count per content key and counting rule, and the R of each tree with a `tree` id, each
   * stored line checked when read (a corrupt or edited entry is counted again), new counts
   * appended as whole lines. Default none: the counts are shared within the process only.
   */
  countCacheDir?: string;
}

/** Scores diagnoses on a folder in a worker thread, each within a deadline. */
export interface DirectoryScorer {
  /** The parameters every score records (defaults filled in). */
  readonly parameters: Readonly<EvaluatorParameters>;
  /**
   * Scores one diagnosis (as `Evaluator.score`). Past the deadline the worker is stopped and
   * the diagnosis scores as invalid: 0 on every metric, one `scoring-deadline-exceeded`
   * warning. `ABORTED` when aborted; a worker that fails otherwise is an `INTERNAL` error.
   */
  score(input: ScoreInput): Promise<DiagnosisScores>;
  /**
   * Lets go of this scorer's evaluator in the shared worker (which stops after a minute idle
   * once no scorer is open, and never keeps the process alive). Call it when done; a later
   * `score` still works.
   */
  close(): Promise<void>;
}

/** How to start the worker: its program, and the node arguments it needs. */
interface WorkerStart {
  program: URL | string;
  eval: boolean;
  execArgv: string[];
  /** Running from source: the TypeScript program and tsx's ESM API that imports it. */
  source?: { program: string; tsxApi: string };
}

/**
 * The worker's program. Built, the compiled `score-worker.js`. From source (the monorepo's tests
 * and `bench/`), a bootstrap that imports `score-worker.ts` through tsx's `tsImport` (Node 20
 * does not apply `--import` loaders to a worker's entry point).
 */
function workerStart(): WorkerStart {
  const here = import.meta.url;
  if (!here.endsWith(".ts"))
    return { program: new URL("./internal/score-worker.js", here), eval: false, execArgv: [] };
  const tsxPackage = createRequire(here).resolve("tsx/package.json");
  return {
    program: `const { workerData } = require("node:worker_threads");
import(workerData.source.tsxApi).then(({ tsImport }) => tsImport(workerData.source.program, workerData.source.program));`,
    eval: true,
    execArgv: ["--conditions=@distdebug/source"],
    source: {
      program: new URL("./internal/score-worker.ts", here).href,
      tsxApi: pathToFileURL(join(dirname(tsxPackage), "dist/esm/api/index.mjs")).href,
    },
  };
}

/**
 * The scores of a diagnosis whose scoring outlasted the deadline: invalid, 0 on every metric,
 * with the reason. Only a diagnosis can make scoring slow, so it is the agent's answer that
 * fails, never the harness.
 */
function deadlineScores(
  input: ScoreInput,
  parameters: EvaluatorParameters,
  deadlineMs: number,
): DiagnosisScores {
  const message = `scoring this diagnosis took longer than the ${deadlineMs / 1000} s deadline; it scores as an invalid diagnosis`;
  return {
    ...scoreMissingDiagnosis({ gold: input.gold, reason: message, parameters }),
    warnings: [{ code: "scoring-deadline-exceeded", message }],
  };
}

/** A tree the worker reads through this thread, with where its counts are kept. */
interface HostTree {
  files: TreeFiles;
  countCacheDir: string | undefined;
  /** The scorer's language overrides (which files R counts). */
  languages: Readonly<Record<string, LanguageChoice>> | undefined;
}

/**
 * The one scoring worker of this process, shared by every directory scorer (one worker start,
 * not one per incident), with the queue that makes it score one diagnosis at a time.
 */
const host: {
  worker: Worker | undefined;
  queue: Promise<unknown>;
  idle: NodeJS.Timeout | undefined;
  nextId: number;
  /** Scorers created and not closed: a minute after the last one closes, the worker stops. */
  open: number;
  /** The trees read on this thread for the worker (with their count cache), by scorer key. */
  trees: Map<string, HostTree>;
} = {
  worker: undefined,
  queue: Promise.resolve(),
  idle: undefined,
  nextId: 0,
  open: 0,
  trees: new Map(),
};

async function stopWorker(): Promise<void> {
  clearTimeout(host.idle);
  const stopping = host.worker;
  host.worker = undefined;
  await stopping?.terminate();
}

/** Reads a file or the file list of a tree for the worker, and answers it. */
async function answerHost(worker: Worker, request: HostRequest): Promise<void> {
  let message: HostAnswer;
  try {
    const tree = host.trees.get(request.key);
    if (!tree)
      throw new DistDebugError({ code: "INTERNAL", message: "a closed scorer's tree was read" });
    const value =
      request.type === "read"
        ? await readBytes(tree.files.readFile, request.path)
        : request.type === "list"
          ? [...(await tree.files.listFiles())]
          : request.type === "rows"
            ? await countRowsOf(tree.files, tree.countCacheDir, request.paths)
            : await keptSizeOf(tree, request.counted);
    message = { type: "answer", id: request.id, value };
  } catch (error) {
    message = {
      type: "answer",
      id: request.id,
      error: DistDebugError.isInstance(error)
        ? { code: error.code, message: error.message }
        : { code: "INTERNAL", message: errorMessage(error) },
    };
  }
  // A worker stopped meanwhile (past a deadline) takes no more messages.
  if (host.worker === worker) worker.postMessage(message);
}

/** The rows of `paths` counted by content (`null`: no content key, the worker counts it). */
async function countRowsOf(
  files: TreeFiles,
  countCacheDir: string | undefined,
  paths: readonly string[],
): Promise<(number | null)[]> {
  const { contents } = files;
  if (!contents) return paths.map(() => null);
  const keys = await contents.keys();
  const wanted = paths.map((path) => keys.get(path));
  const { rows } = await rowCountsIn(countCacheDir).count(
    wanted.filter((key) => key !== undefined),
    (batch) => contents.read(batch),
  );
  return wanted.map((key) => (key === undefined ? null : (rows.get(key) ?? null)));
}

/**
 * R kept for the tree's id (null when none is kept, or the tree has no id); with `counted`, the
 * worker's complete count, kept (answered null).
 */
async function keptSizeOf(
  tree: HostTree,
  counted: RepositorySize | undefined,
): Promise<RepositorySize | null> {
  const id = await tree.files.contents?.tree?.();
  if (!id) return null;
  const keys = treeSizeKeys(id, tree.languages);
  const counts = rowCountsIn(tree.countCacheDir);
  if (counted) {
    await keepTreeSize(counts, keys, counted);
    return null;
  }
  return (await knownTreeSize(counts, keys)) ?? null;
}

async function readBytes(readFile: ReadFile, path: string): Promise<Uint8Array | undefined> {
  const content = await readFile(path);
  return typeof content === "string" ? Buffer.from(content, "utf8") : content;
}

function startWorker(): Worker {
  const how = workerStart();
  const started = new Worker(how.program, {
    eval: how.eval,
    execArgv: how.execArgv,
    workerData: how.source ? { source: how.source } : {},
  });
  started.on("message", (message: ScoreWorkerReply | HostRequest) => {
    if (message.type !== "scored") void answerHost(started, message);
  });
  started.unref();
  return started;
}

/** What one scorer sends the shared worker. */
interface ScorerContext {
  key: string;
  data: ScoreWorkerData;
  parameters: EvaluatorParameters;
  deadlineMs: number;
}

/** Scores one diagnosis on the shared worker within the deadline (queued by the caller). */
function scoreOnWorker(scorer: ScorerContext, input: ScoreInput): Promise<DiagnosisScores> {
  checkAborted(input.signal);
  clearTimeout(host.idle);
  host.worker ??= startWorker();
  const current = host.worker;
  const request: ScoreRequest = {
    type: "score",
    id: host.nextId++,
    key: scorer.key,
    scorer: scorer.data,
    diagnosis: input.diagnosis,
    gold: input.gold,
    ...(input.trajectory === undefined ? {} : { trajectory: input.trajectory }),
    ...(input.missingReason === undefined ? {} : { missingReason: input.missingReason }),
  };
  return new Promise<DiagnosisScores>((resolve, reject) => {
    const finish = (settle: () => void) => {
      clearTimeout(deadline);
      input.signal?.removeEventListener("abort", onAbort);
      current.off("message", onMessage).off("error", onError).off("exit", onExit);
      current.unref();
      settle();
    };
    const onMessage = (reply: ScoreWorkerReply | HostRequest) => {
      if (reply.type !== "scored" || reply.id !== request.id) return;
      finish(() => {
        if (reply.scores) resolve(reply.scores);
        else reject(new DistDebugError({ code: reply.error.code, message: reply.error.message }));
      });
      host.idle = setTimeout(() => void stopWorker(), IDLE_MS).unref();
    };
    const failed = (message: string) => {
      void stopWorker();
      finish(() => reject(new DistDebugError({ code: "INTERNAL", message })));
    };
    const onError = (error: Error) => failed(`the scoring worker failed: ${error.message}`);
    const onExit = (code: number) => failed(`the scoring worker exited (code ${code})`);
    const onAbort = () => {
      void stopWorker();
      finish(() =>
        reject(new DistDebugError({ code: "ABORTED", message: "scoring was interrupted" })),
      );
    };
    const deadline = setTimeout(() => {
      void stopWorker();
      finish(() => resolve(deadlineScores(input, scorer.parameters, scorer.deadlineMs)));
    }, scorer.deadlineMs);
    current.on("message", onMessage).on("error", onError).on("exit", onExit);
    current.ref();
    input.signal?.addEventListener("abort", onAbort, { once: true });
    current.postMessage(request);
  });
}

/**
 * Creates a scorer over a source tree (a folder, or {@link TreeFiles} such as a git tree read
 * from the object store) whose scoring runs in a worker thread, off the caller's event
 * loop (which may serve running attempts: a model gateway, wall-time timers, a memory sampler),
 * each diagnosis within `deadlineMs`. All the scorers of a process share one worker, which
 * scores one diagnosis at a time and keeps an evaluator per folder (files parsed once across
 * diagnoses); it stops after a minute idle (also once the last scorer closed: the next scorer,
such as the next incident's, finds it started; an idle worker never keeps the process alive)
or past a deadline.
 *
 * @example
 * ```ts
 * const scorer = createDirectoryScorer({ root: "/cache/zookeeper@abc" });
 * const scores = await scorer.score({ diagnosis, gold });
 * await scorer.close();
 * ```
 */
export function createDirectoryScorer(options: DirectoryScorerOptions): DirectoryScorer {
  const { root, languages, workspaceRoots, countCacheDir } = options;
  const deadlineMs = options.deadlineMs ?? DEFAULT_SCORING_DEADLINE_MS;
  const parameters = Object.freeze(evaluatorParameters(options));
  const data: ScoreWorkerData = {
    root: typeof root === "string" ? root : { host: true },
    options: {
      ...parameters,
      ...(languages ? { languages } : {}),
      ...(workspaceRoots ? { workspaceRoots } : {}),
    },
  };
  const scorer: ScorerContext = {
    key: `${host.nextId++}:${JSON.stringify(data)}`,
    data,
    parameters,
    deadlineMs,
  };
  host.open++;
  let closed = false;
  return {
    parameters,
    score(input) {
      const result = host.queue.then(() => {
        // Registered while scoring (a closed scorer that scores again registers it again).
        if (typeof root !== "string")
          host.trees.set(scorer.key, { files: root, countCacheDir, languages });
        return scoreOnWorker(scorer, input);
      });
      host.queue = result
        .catch(() => undefined)
        .finally(() => {
          if (closed) host.trees.delete(scorer.key);
        });
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      host.open--;
      host.trees.delete(scorer.key);
      host.worker?.postMessage({ type: "close", key: scorer.key } satisfies ScoreRequest);
      // Kept for the next scorer (rescoring opens one per incident: a worker start each cost
      // more than the scoring), unreferenced, until a minute idle.
      if (host.open === 0 && host.worker) {
        clearTimeout(host.idle);
        host.idle = setTimeout(() => void stopWorker(), IDLE_MS).unref();
      }
    },
  };
}
