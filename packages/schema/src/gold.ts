import { z } from "zod";
import { CommitId, formatTag, LineNumber, RepoPath, textOfAtLeast } from "./common.js";
import { withJsonSchemaRule } from "./internal/json-rule.js";

/** A labeled causal block at the buggy revision (1-based, inclusive). */
export const GoldBlock = z.strictObject({
  path: RepoPath,
  startLine: LineNumber,
  endLine: LineNumber,
  note: z.string().optional(),
});
/** A labeled causal block. */
export type GoldBlock = z.infer<typeof GoldBlock>;

/**
 * `gold.json`: the labels of one incident. Never visible to the agent.
 */
export const Gold = withJsonSchemaRule(
  z
    .strictObject({
      format: formatTag("gold", 1),
      incidentId: z.string().min(1),
      blocks: z.array(GoldBlock).min(1),
      fix: z.strictObject({
        /** The commit that fixed the bug. */
        commit: CommitId,
        url: z.string().optional(),
      }),
      /** Strings that must not appear in the agent's workspace: issue keys, fix ids. */
      needles: z.array(textOfAtLeast(3)).default([]),
    })
    .superRefine((gold, ctx) => {
      gold.blocks.forEach((block, index) => {
        if (block.endLine < block.startLine) {
          ctx.addIssue({
            code: "custom",
            path: ["blocks", index, "endLine"],
            message: `a line >= startLine (${block.startLine})`,
          });
        }
      });
    }),
  { notExpressible: "each block's endLine is >= its startLine." },
);
/** `gold.json`. */
export type Gold = z.infer<typeof Gold>;
