import type { DiagnosisScores, DistDebugErrorCode, Gold } from "@distdebug/schema";
import type { ScoreInput } from "../evaluator.js";
import type { LanguageChoice } from "../languages.js";
import type { EvaluatorParameters } from "../parameters.js";
import type { RepositorySize } from "./repository-size.js";

/** What a directory scorer's evaluator is made of, in the shared worker. */
export interface ScoreWorkerData {
  /**
   * The source tree at the buggy revision: a folder the worker reads, or `host`: the worker
   * asks the scorer's process for each file (a {@link HostRequest}), which reads it (a git tree).
   */
  root: string | { host: true };
  options: Partial<EvaluatorParameters> & {
    languages?: Readonly<Record<string, LanguageChoice>>;
    workspaceRoots?: readonly string[];
  };
}

/**
 * A message to the worker: a diagnosis to score with the evaluator of scorer `key` (made from
 * `scorer` on first use), or the end of a scorer (its evaluator is let go).
 */
export type ScoreRequest =
  | {
      type: "score";
      id: number;
      key: string;
      scorer: ScoreWorkerData;
      diagnosis: unknown;
      gold: Pick<Gold, "incidentId" | "blocks">;
      trajectory?: ScoreInput["trajectory"];
      missingReason?: string;
    }
  | { type: "close"; key: string }
  | HostAnswer;

/** An error as it crosses the process boundary. */
export interface WorkerError {
  code: DistDebugErrorCode;
  message: string;
}

/** The worker's answer: the scores, or the error scoring threw. */
export type ScoreWorkerReply =
  | { type: "scored"; id: number; scores: DiagnosisScores; error?: undefined }
  | { type: "scored"; id: number; scores?: undefined; error: WorkerError };

/**
 * The worker asks the scorer's process for a file or the file list of a `host` tree, for the
 * non-blank rows of listed files counted by content (`null` for a path without a content key:
 * the worker reads and counts it itself), or for the repository size R kept for the tree's id
 * (`size`, answered `null` when none is kept; with `counted`, the worker's complete count to
 * keep, answered `null`).
 */
export type HostRequest =
  | { type: "read"; id: number; key: string; path: string }
  | { type: "list"; id: number; key: string }
  | { type: "rows"; id: number; key: string; paths: string[] }
  | { type: "size"; id: number; key: string; counted?: RepositorySize };

/** The scorer's process answers a {@link HostRequest}: the value, or the error reading threw. */
export type HostAnswer =
  | {
      type: "answer";
      id: number;
      value: Uint8Array | string[] | (number | null)[] | RepositorySize | null | undefined;
      error?: undefined;
    }
  | { type: "answer"; id: number; value?: undefined; error: WorkerError };
