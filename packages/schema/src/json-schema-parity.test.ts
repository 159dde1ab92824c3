import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FormatKind, formats } from "./formats.js";
import { exampleDocuments, isInOpenRecord, type Json } from "./testing/examples.js";

/**
 * One validity rule: for every format, `ajv` with the committed JSON Schema file and the zod
 * parser accept exactly the same documents. The documents are the valid examples of the
 * repository, mutated near their valid shape (fields dropped or added, values swapped for
 * wrong types, boundary numbers, edge strings, array items removed or doubled, unknown keys
 * added: a typo such as `start_line` is rejected by both, issue 30).
 */

const schemaDir = join(import.meta.dirname, "..", "json-schema");

/** Documents per format; with 13 formats the whole test checks tens of thousands. */
const RUNS_PER_FORMAT = 2500;

function compiledSchema(kind: FormatKind): ValidateFunction {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictRequired: false,
    validateFormats: false,
  });
  return ajv.compile(JSON.parse(readFileSync(join(schemaDir, `${kind}.schema.json`), "utf8")));
}

/** Edge strings: empty, short, astral characters, reserved sandbox paths, near-valid ids. */
const edgeStrings = [
  "",
  "a",
  "ab",
  "abc",
  "😀",
  "😀a",
  "😀😀",
  "/",
  "//",
  "/tmp",
  "/tmp/",
  "/tmp//",
  "/tmpx",
  "/workspace",
  "/workspace/src",
  "/run\n",
  "relative/path",
  "buggy",
  "fix",
  "0123456789abcdef0123456789abcdef01234567",
  "0123456789abcdef0123456789abcdef01234567\n",
  "0123456789ABCDEF0123456789ABCDEF01234567",
  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  "2026-12-04T12:00:00Z",
  "2026-12-04T12:00:00.5+01:00",
  "2026-12-04T12:00:00Z\n",
  "٢٠٢٦-12-04T12:00:00Z",
  "2024-02-29T00:00:00Z",
  "2026-02-29T00:00:00Z",
  "2026-12-04 12:00:00",
  "distdebug.diagnosis/1",
  "distdebug.diagnosis/2",
  "https://example.test/v1",
  "${OPENAI_BASE_URL}",
  "v1.4.1",
  "-tag",
  "OPENAI_API_KEY",
  "1BAD",
  // Around the 1,000-character cap of a diagnosis block's path and symbol, in code points.
  "x".repeat(1000),
  "x".repeat(1001),
  "😀".repeat(1000),
  "😀".repeat(1001),
];

const edgeNumbers = [0, -0, 1, -1, 0.5, 1.5, 2, 3, 200, 201, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 1e300];

/** The strings and numbers of the seeds (enum members, constants, real values) and edges. */
function valuePool(seeds: Json[]): fc.Arbitrary<Json> {
  const strings = new Set(edgeStrings);
  const numbers = new Set(edgeNumbers);
  const visit = (value: Json): void => {
    if (typeof value === "string" && value.length < 200) strings.add(value);
    else if (typeof value === "number") numbers.add(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(visit);
  };
  seeds.forEach(visit);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...strings) },
    { weight: 3, arbitrary: fc.constantFrom(...numbers) },
    { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [""], { a: 1 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 4, unit: "binary" }) },
  );
}

/** Every key of the seeds, so an added field is often one a rule is about. */
function keyPool(seeds: Json[]): fc.Arbitrary<string> {
  const keys = new Set([
    ...["extra", "path", "symbol", "startLine", "endLine", "target", "role"],
    // Unknown keys (typos, other spellings, an `x-` extension): both sides reject them.
    ...["start_line", "end_line", "wallTimeLimtSec", "enviroment", "attempt", "x-note", ""],
  ]);
  const visit = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object")
      for (const [key, child] of Object.entries(value)) {
        keys.add(key);
        visit(child);
      }
  };
  seeds.forEach(visit);
  return fc.constantFrom(...keys);
}

type Path = (string | number)[];

/** Every container (object or array) of a document with its path. */
function containers(document: Json, path: Path = []): { path: Path; node: Json }[] {
  if (document === null || typeof document !== "object") return [];
  const children = Array.isArray(document)
    ? document.map((child, index) => containers(child, [...path, index]))
    : Object.entries(document).map(([key, child]) => containers(child, [...path, key]));
  return [{ path, node: document }, ...children.flat()];
}

interface Mutation {
  op: "delete" | "set" | "add" | "duplicate" | "copy";
  pick: number;
  other: number;
  key: string;
  value: Json;
}

/** A value of a container (by index among its keys or items) and the key that holds it. */
function slot(node: Json, pick: number): { key: string | number; value: Json } | undefined {
  if (node === null || typeof node !== "object") return undefined;
  const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
  if (keys.length === 0) return undefined;
  const key = keys[pick % keys.length]!;
  return { key, value: (node as Record<string | number, Json>)[key]! };
}

function mutate(document: Json, step: Mutation): void {
  const mutation = { ...step, value: structuredClone(step.value) };
  const all = containers(document);
  const target = all[mutation.pick % all.length]!.node as Record<string | number, Json> & Json;
  const chosen = slot(target, mutation.other);
  if (mutation.op === "add" && !Array.isArray(target)) target[mutation.key] = mutation.value;
  else if (mutation.op === "add" && Array.isArray(target)) target.push(mutation.value);
  else if (!chosen) return;
  else if (mutation.op === "delete" && Array.isArray(target)) target.splice(Number(chosen.key), 1);
  else if (mutation.op === "delete") delete target[chosen.key];
  else if (mutation.op === "set") target[chosen.key] = mutation.value;
  else if (mutation.op === "duplicate" && Array.isArray(target))
    target.push(structuredClone(chosen.value));
  else if (mutation.op === "copy") {
    const source = slot(all[mutation.other % all.length]!.node, mutation.pick);
    if (source) target[chosen.key] = structuredClone(source.value);
  }
}

function mutationArbitrary(seeds: Json[]): fc.Arbitrary<Mutation> {
  return fc.record({
    op: fc.constantFrom("delete", "set", "add", "duplicate", "copy"),
    pick: fc.nat(),
    other: fc.nat(),
    key: keyPool(seeds),
    value: valuePool(seeds),
  });
}

/**
 * Documents that break a rule draft 2020-12 cannot say (the schema's `description` names it):
 * zod must reject them, and the JSON Schema may accept them.
 */
function breaksUnexpressibleRule(kind: FormatKind, document: Json): boolean {
  const items = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
  const field = (value: Json | undefined, key: string): Json | undefined =>
    value !== null && typeof value === "object" && !Array.isArray(value) ? value[key] : undefined;
  if (kind === "gold")
    return items(field(document, "blocks")).some((block) => {
      const start = field(block, "startLine");
      const end = field(block, "endLine");
      return typeof start === "number" && typeof end === "number" && end < start;
    });
  if (kind === "repo_history") {
    const roles = items(field(document, "commits")).map((commit) => field(commit, "role"));
    const fix = roles.indexOf("fix");
    return fix >= 0 && roles.indexOf("buggy", fix + 1) > fix;
  }
  return false;
}

/** A document as a JSON file holds it (no undefined, no NaN). */
function asJson(document: Json): Json {
  return JSON.parse(JSON.stringify(document)) as Json;
}

describe("the committed JSON Schema and the zod parser", () => {
  const kinds = Object.keys(formats) as FormatKind[];

  it.each(kinds)("both reject an unknown key in any object of a valid %s document", (kind) => {
    const validate = compiledSchema(kind);
    const zod = formats[kind].schema;
    for (const { file, document } of exampleDocuments(kind)) {
      for (const { path, node } of containers(document)) {
        if (Array.isArray(node) || isInOpenRecord(path)) continue;
        const copy = structuredClone(document);
        const target = containers(copy).find((entry) => entry.path.join("/") === path.join("/"));
        (target?.node as Record<string, Json>).start_line = 1;
        const where = `${file} at /${path.join("/")}`;
        expect(zod.safeParse(copy).success, `zod, ${where}`).toBe(false);
        expect(validate(copy), `JSON Schema, ${where}`).toBe(false);
      }
    }
  });

  it.each(kinds)("agree on %s documents near the valid shape", { timeout: 120_000 }, (kind) => {
    const seeds = exampleDocuments(kind).map((example) => example.document);
    expect(seeds.length, `valid examples of ${kind}`).toBeGreaterThan(0);
    const validate = compiledSchema(kind);
    const zod = formats[kind].schema;
    for (const seed of seeds) {
      expect(zod.safeParse(seed).error, `a seed of ${kind}`).toBeUndefined();
      expect(validate(seed), JSON.stringify(validate.errors)).toBe(true);
    }
    const seedIndex = fc.nat({ max: seeds.length - 1 });
    const mutations = fc.array(mutationArbitrary(seeds), { minLength: 1, maxLength: 4 });
    let rejected = 0;
    fc.assert(
      fc.property(seedIndex, mutations, (index, steps) => {
        const document = structuredClone(seeds[index]!);
        for (const step of steps) mutate(document, step);
        const json = asJson(document);
        const zodAccepts = zod.safeParse(json).success;
        const schemaAccepts = validate(json);
        if (!zodAccepts) rejected++;
        if (breaksUnexpressibleRule(kind, json)) return !zodAccepts;
        return zodAccepts === schemaAccepts;
      }),
      { seed: 19_03, numRuns: RUNS_PER_FORMAT, endOnFailure: false },
    );
    // The mutations reach both sides of the rule, not only accepted documents.
    expect(rejected).toBeGreaterThan(RUNS_PER_FORMAT / 10);
    expect(rejected).toBeLessThan(RUNS_PER_FORMAT);
  });
});
