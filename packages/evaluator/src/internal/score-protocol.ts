import type { DiagnosisScores, DistDebugErrorCode, Gold } from "@distdebug/schema";
import type { ScoreInput } from "../evaluator.js";
import type { LanguageChoice } from "../languages.js";
import type { EvaluatorParameters } from "../parameters.js";

/** What a directory scorer's evaluator is made of, in the shared worker. */
export interface ScoreWorkerData {
  /** The source tree at the buggy revision. */
  root: string;
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
  | { type: "close"; key: string };

/** The worker's answer: the scores, or the error scoring threw. */
export type ScoreWorkerReply =
  | { id: number; scores: DiagnosisScores; error?: undefined }
  | { id: number; scores?: undefined; error: { code: DistDebugErrorCode; message: string } };
