import { z } from "zod";
import { formatTag, LineNumber, RepoPath } from "./common.js";

/**
 * One named code block. Give `path` with lines, `path` alone (the whole file: costs precision,
 * earns no coverage), or `symbol` (with or without `path`), for example `ZKDatabase.loadDataBase`.
 * Reversed or out-of-range lines are accepted here and reported as warnings by the evaluator.
 */
export const DiagnosisBlock = z
  .object({
    path: RepoPath.optional(),
    startLine: LineNumber.optional(),
    endLine: LineNumber.optional(),
    symbol: z.string().min(1).optional(),
    reason: z.string().optional(),
  })
  .superRefine((block, ctx) => {
    if (block.path === undefined && block.symbol === undefined) {
      ctx.addIssue({ code: "custom", path: ["path"], message: "a path or a symbol" });
    }
    if (block.endLine !== undefined && block.startLine === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["startLine"],
        message: "startLine when endLine is given",
      });
    }
    if (block.startLine !== undefined && block.path === undefined) {
      ctx.addIssue({ code: "custom", path: ["path"], message: "a path when lines are given" });
    }
  });
/** One named code block. */
export type DiagnosisBlock = z.infer<typeof DiagnosisBlock>;

/**
 * `diagnosis.json`: what the agent names as the causal code.
 *
 * @example
 * ```json
 * { "format": "distdebug.diagnosis/1", "incidentId": "zookeeper-2845",
 *   "blocks": [{ "path": "src/.../ZKDatabase.java", "startLine": 240, "endLine": 246 }] }
 * ```
 */
export const Diagnosis = z.object({
  format: formatTag("diagnosis", 1),
  incidentId: z.string().min(1),
  blocks: z.array(DiagnosisBlock),
  summary: z.string().optional(),
});
/** `diagnosis.json`. */
export type Diagnosis = z.infer<typeof Diagnosis>;
