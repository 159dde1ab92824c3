import type { z } from "zod";

type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Schema = z.core.$ZodType;

const defOf = (schema: Schema): Def => schema._zod.def as Def;

/** Wrappers whose value is read through another schema. */
function unwrap(schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = defOf(current);
    if ("innerType" in def) current = def.innerType as Schema;
    else if (def.type === "pipe") current = def.in as Schema;
    else if (def.type === "lazy") current = (def.getter as () => Schema)();
    else return current;
  }
  return current;
}

/** The options of a union, or the schema itself. */
function options(schema: Schema): Schema[] {
  const def = defOf(schema);
  if (def.type === "union") return (def.options as Schema[]).map(unwrap).flatMap(options);
  if (def.type === "intersection") return [def.left as Schema, def.right as Schema].map(unwrap);
  return [schema];
}

/** The keys of an object schema, or undefined. */
function shapeKeys(schema: Schema): string[] | undefined {
  const def = defOf(schema);
  return def.type === "object" ? Object.keys(def.shape as object) : undefined;
}

/** The schema of one child (a key or an item) of `schema`, read with the input value `value`. */
function child(schema: Schema, key: PropertyKey, value: unknown): Schema | undefined {
  const matching = best(options(unwrap(schema)), value);
  if (!matching) return undefined;
  const def = defOf(matching);
  if (def.type === "object") {
    const shape = def.shape as Record<PropertyKey, Schema>;
    return Object.hasOwn(shape, key) ? shape[key] : undefined;
  }
  if (def.type === "array") return def.element as Schema;
  if (def.type === "record") return def.valueType as Schema;
  return undefined;
}

/** Of a union's options, the object one sharing the most keys (and any literal tag) with `value`. */
function best(candidates: Schema[], value: unknown): Schema | undefined {
  if (candidates.length <= 1 || value === null || typeof value !== "object") return candidates[0];
  const present = Object.keys(value);
  let top: Schema | undefined;
  let topScore = -1;
  for (const candidate of candidates) {
    const keys = shapeKeys(candidate) ?? [];
    const score = present.filter((key) => keys.includes(key)).length;
    if (score > topScore) {
      top = candidate;
      topScore = score;
    }
  }
  return top;
}

/**
 * The keys the object schema at `path` inside `schema` knows, read along `input` to choose
 * between a union's options; undefined when the path does not lead to an object schema.
 */
export function knownKeysAt(
  schema: Schema,
  path: readonly PropertyKey[],
  input: unknown,
): string[] | undefined {
  let current: Schema | undefined = schema;
  let value = input;
  for (const key of path) {
    current = current && child(current, key, value);
    value =
      value !== null && typeof value === "object"
        ? (value as Record<PropertyKey, unknown>)[key]
        : undefined;
    if (!current) return undefined;
  }
  const target = best(options(unwrap(current)), value);
  return target && shapeKeys(target);
}
