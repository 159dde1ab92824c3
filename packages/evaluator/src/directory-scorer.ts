import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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

/** How much of the worker's standard error is kept, to name why it failed. */
const STDERR_TAIL_BYTES = 2048;

/**
 * A source tree read in the scorer's own process (a git tree read from the object store): the
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
   * the worker reads, or {@link TreeFiles} read in the calling process.
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

/** Scores diagnoses on a folder in a worker process, each within a deadline. */
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
  program: string;
  execArgv: string[];
}

/**
 * The worker's program: built, the compiled `score-worker.js`; from source (the monorepo's
 * tests and `bench/`), `score-worker.ts` through tsx's loader. Never this process's own node
 * arguments (a test runner's, an inspector's).
 */
function workerStart(): WorkerStart {
  const here = import.meta.url;
  if (!here.endsWith(".ts"))
    return { program: fileURLToPath(new URL("./internal/score-worker.js", here)), execArgv: [] };
  const tsxPackage = createRequire(here).resolve("tsx/package.json");
  return {
    program: fileURLToPath(new URL("./internal/score-worker.ts", here)),
    execArgv: [
      "--conditions=@distdebug/source",
      "--import",
      pathToFileURL(join(dirname(tsxPackage), "dist/loader.mjs")).href,
    ],
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
 * not one per incident), with the queue that makes it score one diagnosis at a time. It is a
 * child process, not a worker thread: stopping it past a deadline is a SIGKILL, which cannot
 * harm this process (a worker thread terminated while tree-sitter calls back into JavaScript
 * aborts the whole process).
 */
const host: {
  worker: ScoringWorker | undefined;
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

/** The worker process, and the end of its standard error (why it failed, if it did). */
interface ScoringWorker {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<void>;
}

async function stopWorker(): Promise<void> {
  clearTimeout(host.idle);
  const stopping = host.worker;
  host.worker = undefined;
  if (!stopping) return;
  stopping.child.kill("SIGKILL");
  await stopping.exited;
}

/** Lets the worker keep this process alive (while it scores), or not (idle). */
function holdProcess(worker: ScoringWorker, hold: boolean): void {
  const { child } = worker;
  // A child's piped stderr is a socket.
  const handles = [child, child.channel, child.stderr as Socket | null];
  for (const handle of handles) {
    if (hold) handle?.ref();
    else handle?.unref();
  }
}

/** Sends a message to the worker; one that ended meanwhile is reported by its exit. */
function send(worker: ScoringWorker, message: ScoreRequest): void {
  if (!worker.child.connected) return;
  // A send that fails needs no handling of its own: the worker's exit settles what waited on it.
  worker.child.send(message, () => {});
}

/** Reads a file or the file list of a tree for the worker, and answers it. */
async function answerHost(worker: ScoringWorker, request: HostRequest): Promise<void> {
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
  if (host.worker === worker) send(worker, message);
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

function startWorker(): ScoringWorker {
  const how = workerStart();
  const child = fork(how.program, [], {
    execArgv: how.execArgv,
    serialization: "advanced",
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let tail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    tail = (tail + text).slice(-STDERR_TAIL_BYTES);
  });
  const worker: ScoringWorker = {
    child,
    stderr: () => tail,
    exited: new Promise((resolve) => {
      const ended = () => {
        // A worker that died while idle (an oom kill, a signal from outside) is not handed to
        // the next score, which would wait for its deadline: the next score starts a new one.
        if (host.worker === worker) {
          clearTimeout(host.idle);
          host.worker = undefined;
        }
        resolve();
      };
      child.once("exit", ended);
      // Also the listener that keeps an error event from throwing in this process; an error
      // after the start (a message that could not be sent) is not an end, its exit follows.
      child.on("error", () => {
        if (child.pid === undefined) ended();
      });
    }),
  };
  child.on("message", (message: ScoreWorkerReply | HostRequest) => {
    if (message.type !== "scored") void answerHost(worker, message);
  });
  holdProcess(worker, false);
  return worker;
}

/** Why the worker ended: its exit code or signal, and the last line it printed, if any. */
function exitReason(worker: ScoringWorker, code: number | null, signal: string | null): string {
  const lastLine = worker
    .stderr()
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .at(-1);
  const how = signal === null ? `code ${code}` : `signal ${signal}`;
  return `the scoring worker exited (${how})${lastLine ? `: ${lastLine}` : ""}`;
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
      current.child.off("message", onMessage).off("error", onError).off("exit", onExit);
      holdProcess(current, false);
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
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      failed(exitReason(current, code, signal));
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
    current.child.on("message", onMessage).on("error", onError).on("exit", onExit);
    holdProcess(current, true);
    input.signal?.addEventListener("abort", onAbort, { once: true });
    send(current, request);
  });
}

/**
 * Creates a scorer over a source tree (a folder, or {@link TreeFiles} such as a git tree read
 * from the object store) whose scoring runs in a worker process, off the caller's event
 * loop (which may serve running attempts: a model gateway, wall-time timers, a memory sampler),
 * each diagnosis within `deadlineMs`. All the scorers of a process share one worker, which
 * scores one diagnosis at a time and keeps an evaluator per folder (files parsed once across
 * diagnoses); it stops after a minute idle (also once the last scorer closed: the next scorer,
 * such as the next incident's, finds it started; an idle worker never keeps the process alive)
 * or past a deadline (a SIGKILL: nothing of it outlives the deadline).
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
      if (host.worker) send(host.worker, { type: "close", key: scorer.key });
      // Kept for the next scorer (rescoring opens one per incident: a worker start each cost
      // more than the scoring), unreferenced, until a minute idle.
      if (host.open === 0 && host.worker) {
        clearTimeout(host.idle);
        host.idle = setTimeout(() => void stopWorker(), IDLE_MS).unref();
      }
    },
  };
}
