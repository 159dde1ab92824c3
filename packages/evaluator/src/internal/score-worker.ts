/**
 * The program of the directory scorers' shared worker thread (see `directory-scorer.ts`): an
 * evaluator per scorer, kept until the scorer closes so files are parsed once, scoring one
 * request at a time.
 */
import { parentPort } from "node:worker_threads";
import { DistDebugError, errorMessage } from "@distdebug/schema";
import { directoryReader, listDirectoryFiles } from "../directory-reader.js";
import { createEvaluator, type Evaluator } from "../evaluator.js";
import type { ScoreRequest, ScoreWorkerData, ScoreWorkerReply } from "./score-protocol.js";

const evaluators = new Map<string, Evaluator>();

function evaluatorOf(key: string, { root, options }: ScoreWorkerData): Evaluator {
  let evaluator = evaluators.get(key);
  if (!evaluator) {
    evaluator = createEvaluator({
      ...options,
      readFile: directoryReader(root),
      listFiles: () => listDirectoryFiles(root),
    });
    evaluators.set(key, evaluator);
  }
  return evaluator;
}

parentPort?.on("message", async (request: ScoreRequest) => {
  if (request.type === "close") {
    evaluators.delete(request.key);
    return;
  }
  let reply: ScoreWorkerReply;
  try {
    const evaluator = evaluatorOf(request.key, request.scorer);
    reply = {
      id: request.id,
      scores: await evaluator.score({
        diagnosis: request.diagnosis,
        gold: request.gold,
        ...(request.trajectory === undefined ? {} : { trajectory: request.trajectory }),
        ...(request.missingReason === undefined ? {} : { missingReason: request.missingReason }),
      }),
    };
  } catch (error) {
    reply = {
      id: request.id,
      error: DistDebugError.isInstance(error)
        ? { code: error.code, message: error.message }
        : { code: "INTERNAL", message: errorMessage(error) },
    };
  }
  parentPort?.postMessage(reply);
});
