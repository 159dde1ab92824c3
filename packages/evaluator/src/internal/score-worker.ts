/**
 * The program of the directory scorers' shared worker process (see `directory-scorer.ts`): an
 * evaluator per scorer, kept until the scorer closes so files are parsed once, scoring one
 * request at a time. It talks to its parent over the IPC channel and ends when that closes.
 */
import { DistDebugError, errorMessage } from "@distdebug/schema";
import { directoryReader, listDirectoryFiles, type ReadFile } from "../directory-reader.js";
import { type Evaluator, type EvaluatorInternals, evaluatorWith } from "../evaluator.js";
import type { RepositorySize } from "./repository-size.js";
import type {
  HostAnswer,
  HostRequest,
  ScoreRequest,
  ScoreWorkerData,
  ScoreWorkerReply,
  WorkerError,
} from "./score-protocol.js";

const evaluators = new Map<string, Evaluator>();

/** Questions to the scorer's process awaiting their answer, by id. */
const asked = new Map<number, { resolve: (value: unknown) => void; reject: (e: Error) => void }>();
let nextQuestion = 0;

/** Sends a message to the parent; a parent gone meanwhile ends this process (see below). */
function send(message: HostRequest | ScoreWorkerReply): void {
  if (process.connected) process.send?.(message, undefined, {}, () => {});
}

/** Asks the scorer's process to read from a `host` tree (see `HostRequest`). */
function ask(
  request:
    | { type: "read"; key: string; path: string }
    | { type: "list"; key: string }
    | { type: "rows"; key: string; paths: string[] }
    | { type: "size"; key: string; counted?: RepositorySize },
): Promise<unknown> {
  const id = nextQuestion++;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    send({ ...request, id } as HostRequest);
  });
}

function answer(message: HostAnswer): void {
  const question = asked.get(message.id);
  asked.delete(message.id);
  if (message.error) question?.reject(new DistDebugError(message.error));
  else question?.resolve(message.value);
}

/**
 * The files of a scorer's tree: a folder read here, or a tree its process reads for us (which
 * also counts the rows of its files by content, see `RowCounts`).
 */
function treeOf(
  key: string,
  root: ScoreWorkerData["root"],
): { readFile: ReadFile; listFiles: () => Promise<readonly string[]> } & EvaluatorInternals {
  if (typeof root === "string")
    return { readFile: directoryReader(root), listFiles: () => listDirectoryFiles(root) };
  return {
    readFile: async (path) => (await ask({ type: "read", key, path })) as Uint8Array | undefined,
    listFiles: async () => (await ask({ type: "list", key })) as string[],
    countRows: async (paths) =>
      (await ask({ type: "rows", key, paths: [...paths] })) as (number | null)[],
    keptSize: {
      find: async () => ((await ask({ type: "size", key })) as RepositorySize | null) ?? undefined,
      keep: async (counted) => {
        await ask({ type: "size", key, counted });
      },
    },
  };
}

function evaluatorOf(key: string, { root, options }: ScoreWorkerData): Evaluator {
  let evaluator = evaluators.get(key);
  if (!evaluator) {
    const { countRows, keptSize, ...tree } = treeOf(key, root);
    evaluator = evaluatorWith(
      { ...options, ...tree },
      { ...(countRows ? { countRows } : {}), ...(keptSize ? { keptSize } : {}) },
    );
    evaluators.set(key, evaluator);
  }
  return evaluator;
}

function workerError(error: unknown): WorkerError {
  return DistDebugError.isInstance(error)
    ? { code: error.code, message: error.message }
    : { code: "INTERNAL", message: errorMessage(error) };
}

async function score(request: Extract<ScoreRequest, { type: "score" }>): Promise<void> {
  let reply: ScoreWorkerReply;
  try {
    const evaluator = evaluatorOf(request.key, request.scorer);
    reply = {
      type: "scored",
      id: request.id,
      scores: await evaluator.score({
        diagnosis: request.diagnosis,
        gold: request.gold,
        ...(request.trajectory === undefined ? {} : { trajectory: request.trajectory }),
        ...(request.missingReason === undefined ? {} : { missingReason: request.missingReason }),
      }),
    };
  } catch (error) {
    reply = { type: "scored", id: request.id, error: workerError(error) };
  }
  send(reply);
}

process.on("message", (request: ScoreRequest) => {
  if (request.type === "answer") answer(request);
  else if (request.type === "close") evaluators.delete(request.key);
  else void score(request);
});
// The parent ended (or let go of this worker): nothing is left to score for.
process.on("disconnect", () => process.exit(0));
