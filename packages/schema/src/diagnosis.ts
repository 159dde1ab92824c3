import { z } from "zod";
import { formatTag, LineNumber, textOfAtMost } from "./common.js";
import { withJsonSchemaRule } from "./internal/json-rule.js";

/**
 * The longest `path` or `symbol` of a diagnosis block, in characters (code points): longer is
 * invalid, so the cost of resolving a block stays bounded.
 */
export const MAX_DIAGNOSIS_NAME_CHARS = 1000;

/** A block's path or symbol: 1 to {@link MAX_DIAGNOSIS_NAME_CHARS} characters. */
const BlockName = textOfAtMost(MAX_DIAGNOSIS_NAME_CHARS, 1);

/**
 * One named code block. Give `path` with lines, `path` alone (the whole file: costs precision,
 * earns no coverage), or `symbol` (with or without `path`), for example `ZKDatabase.loadDataBase`.
 * A path or symbol has at most {@link MAX_DIAGNOSIS_NAME_CHARS} characters. Reversed or out-of-range lines are accepted here and reported as warnings by the evaluator.
 */
export const DiagnosisBlock = withJsonSchemaRule(
  z
    .strictObject({
      path: BlockName.optional(),
      startLine: LineNumber.optional(),
      endLine: LineNumber.optional(),
      symbol: BlockName.optional(),
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
    }),
  {
    jsonSchema: {
      anyOf: [{ required: ["path"] }, { required: ["symbol"] }],
      dependentRequired: { endLine: ["startLine"], startLine: ["path"] },
    },
  },
);
/** One named code block. */
export type DiagnosisBlock = z.infer<typeof DiagnosisBlock>;

/**
 * Default `maxDiagnosisBlocks`: a diagnosis names at most this many blocks. Validity is this
 * one rule everywhere (`validate`, `evaluate`, `run`, `score`, the JSON Schema's `maxItems`), so
 * the cost of scoring one diagnosis stays bounded.
 */
export const DEFAULT_MAX_DIAGNOSIS_BLOCKS = 200;

function makeDiagnosisSchema(maxBlocks: number) {
  return z.strictObject({
    format: formatTag("diagnosis", 1),
    incidentId: z.string().min(1),
    blocks: z.array(DiagnosisBlock).max(maxBlocks),
    summary: z.string().optional(),
  });
}

/**
 * `diagnosis.json`: what the agent names as the causal code, with at most
 * {@link DEFAULT_MAX_DIAGNOSIS_BLOCKS} blocks (see {@link diagnosisSchema} for another limit).
 *
 * @example
 * ```json
 * { "format": "distdebug.diagnosis/1", "incidentId": "zookeeper-2845",
 *   "blocks": [{ "path": "src/.../ZKDatabase.java", "startLine": 240, "endLine": 246 }] }
 * ```
 */
export const Diagnosis = makeDiagnosisSchema(DEFAULT_MAX_DIAGNOSIS_BLOCKS);
/** `diagnosis.json`. */
export type Diagnosis = z.infer<typeof Diagnosis>;

const schemasByLimit = new Map<number, typeof Diagnosis>([
  [DEFAULT_MAX_DIAGNOSIS_BLOCKS, Diagnosis],
]);

/**
 * The diagnosis schema with at most `maxBlocks` blocks (a whole number >= 1), for a run or a
 * scorer configured with another `maxDiagnosisBlocks`.
 *
 * @example
 * ```ts
 * diagnosisSchema(10_000).parse(value);
 * ```
 */
export function diagnosisSchema(maxBlocks: number): typeof Diagnosis {
  let schema = schemasByLimit.get(maxBlocks);
  if (!schema) {
    schema = makeDiagnosisSchema(maxBlocks);
    schemasByLimit.set(maxBlocks, schema);
  }
  return schema;
}
