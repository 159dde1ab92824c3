/**
 * The program of a directory scorer's worker thread (see `directory-scorer.ts`): one evaluator
 * over the folder in `workerData`, kept for the worker's life so files are parsed once, scoring
 * one request at a time.
 */
import { parentPort, workerData } from "node:worker_threads";
import { DistDebugError, errorMessage } from "@distdebug/schema";
import { directoryReader, listDirectoryFiles } from "../directory-reader.js";
import { createEvaluator } from "../evaluator.js";
import type { ScoreRequest, ScoreWorkerData, ScoreWorkerReply } from "./score-protocol.js";

const { root, options } = workerData as ScoreWorkerData;
const evaluator = createEvaluator({
  ...options,
  readFile: directoryReader(root),
  listFiles: () => listDirectoryFiles(root),
});

parentPort?.on("message", async (request: ScoreRequest) => {
  let reply: ScoreWorkerReply;
  try {
    reply = {
      id: request.id,
      scores: await evaluator.score({ diagnosis: request.diagnosis, gold: request.gold }),
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
