import type { DiagnosisScores, DistDebugErrorCode, Gold } from "@distdebug/schema";
import type { LanguageChoice } from "../languages.js";
import type { EvaluatorParameters } from "../parameters.js";

/** What a directory scorer's worker starts with. */
export interface ScoreWorkerData {
  /** The source tree at the buggy revision. */
  root: string;
  options: Partial<EvaluatorParameters> & {
    languages?: Readonly<Record<string, LanguageChoice>>;
    workspaceRoots?: readonly string[];
  };
}

/** One diagnosis to score. */
export interface ScoreRequest {
  id: number;
  diagnosis: unknown;
  gold: Pick<Gold, "incidentId" | "blocks">;
}

/** The worker's answer: the scores, or the error scoring threw. */
export type ScoreWorkerReply =
  | { id: number; scores: DiagnosisScores; error?: undefined }
  | { id: number; scores?: undefined; error: { code: DistDebugErrorCode; message: string } };
