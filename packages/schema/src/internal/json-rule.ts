import type { z } from "zod";

/** A fragment of JSON Schema (draft 2020-12) merged into a generated schema. */
export type JsonSchemaFragment = Record<string, unknown>;

/**
 * How the refinements (`.refine`, `.superRefine`) of one zod schema read in its JSON Schema.
 * `jsonSchema` is merged into the generated schema of the refined zod schema, so a Python or Go
 * validator rejects what zod rejects. `notExpressible` names the part that draft 2020-12 cannot
 * say (it has no comparison between two fields, no order between array items); it is appended
 * to the schema's `description`, so the gap is stated where a reader of the JSON Schema looks.
 */
export interface JsonSchemaRule {
  readonly jsonSchema?: JsonSchemaFragment;
  readonly notExpressible?: string;
}

const rules = new WeakMap<z.core.$ZodType, JsonSchemaRule>();

/**
 * Registers the JSON Schema form of the refinements of `schema` (written next to them, once)
 * and returns `schema`. The generator refuses a refined schema without a registered rule.
 */
export function withJsonSchemaRule<Schema extends z.ZodType>(
  schema: Schema,
  rule: JsonSchemaRule,
): Schema {
  rules.set(schema, rule);
  return schema;
}

/** The rule registered for `schema`, if any. */
export function jsonSchemaRuleOf(schema: z.core.$ZodType): JsonSchemaRule | undefined {
  return rules.get(schema);
}

/** Does `schema` carry a refinement (a custom check) of its own? */
export function hasRefinement(schema: z.core.$ZodType): boolean {
  const checks = schema._zod.def.checks ?? [];
  return checks.some((check) => check._zod.def.check === "custom");
}

/**
 * Merges `rule` into the generated `target`: keys the generator did not write are set, keys it
 * did write are kept and the fragment joins `allOf`; `notExpressible` extends `description`.
 */
export function applyJsonSchemaRule(target: JsonSchemaFragment, rule: JsonSchemaRule): void {
  const fragment = rule.jsonSchema ?? {};
  const clashes = Object.keys(fragment).some((key) => Object.hasOwn(target, key));
  if (clashes) {
    const allOf = Array.isArray(target.allOf) ? target.allOf : [];
    target.allOf = [...allOf, fragment];
  } else {
    Object.assign(target, fragment);
  }
  if (rule.notExpressible) {
    const note = `Not expressible in JSON Schema, checked by distdebug validate: ${rule.notExpressible}`;
    target.description =
      typeof target.description === "string" ? `${target.description} ${note}` : note;
  }
}
