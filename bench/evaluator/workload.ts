/**
 * The evaluator benchmark's workload, shared by `bench.ts` (time) and `instructions.ts`
 * (instruction counts): the generated repository, 360 diagnoses against it, one tree-sitter
 * parser per language for the floor, and the collection that ends each measured phase.
 */
import { Language } from "@distdebug/schema";
// The runtime and grammars the evaluator loads (tree-sitter, under its alias).
import { Parser } from "../../packages/evaluator/src/internal/tree-sitter.js";
import { grammarOf } from "../../packages/evaluator/src/languages.js";
import { type GeneratedFile, random, symbolOf } from "./generate.js";

/** One parser per language (the floor parses with these, trees dropped). */
export function createParsers(): Map<Language, Parser> {
  const parsers = new Map<Language, Parser>();
  for (const language of Language.options) {
    const parser = new Parser();
    parser.setLanguage(grammarOf(language));
    parsers.set(language, parser);
  }
  return parsers;
}

/** Parses a file the way the floor does. */
export function parseOnly(parsers: Map<Language, Parser>, file: GeneratedFile): void {
  (parsers.get(file.language) as Parser).parse(file.text, null, { bufferSize: 1024 * 1024 });
}

/** V8's collector, when node runs with --expose-gc. */
export const gc = (globalThis as { gc?: (options?: { type: "major" | "minor" }) => void }).gc;

/**
 * Collects the garbage a phase made, its trees included: node-tree-sitter frees a tree's native
 * memory in a finalizer that runs after a collection, on a later turn of the event loop, so
 * without this one phase's trees would be freed (and paid for) in the next one.
 */
export async function settle(): Promise<void> {
  gc?.();
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A young-generation collection: frees the trees of the step just done (their finalizers run)
 * without the cost of a full collection of everything the evaluator keeps.
 */
export async function settleYoung(): Promise<void> {
  gc?.({ type: "minor" });
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

export interface Attempt {
  gold: { incidentId: string; blocks: { path: string; startLine: number; endLine: number }[] };
  diagnosis: unknown;
}

function range(file: GeneratedFile, next: () => number, length: number) {
  const startLine = 1 + Math.floor(next() * Math.max(1, file.lineCount - length));
  return { path: file.path, startLine, endLine: Math.min(file.lineCount, startLine + length - 1) };
}

/** 60 incidents x 6 attempts: spans near the gold, elsewhere, symbols, whole files, bad paths. */
export function makeAttempts(files: GeneratedFile[], count: number): Attempt[] {
  const next = random(42);
  const pick = () => files[Math.floor(next() * files.length)] as GeneratedFile;
  const list: Attempt[] = [];
  const incidents = Math.max(1, Math.round(count / 6));
  const golds = Array.from({ length: incidents }, (_, i) => {
    const blocks = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
      range(pick(), next, 3 + Math.floor(next() * 6)),
    );
    return { incidentId: `bench-${i}`, blocks };
  });
  for (let a = 0; a < count; a++) {
    const gold = golds[a % incidents] as Attempt["gold"];
    const blocks: unknown[] = [];
    const spans = 1 + Math.floor(next() * 5);
    for (let s = 0; s < spans; s++) {
      const roll = next();
      const target = gold.blocks[
        Math.floor(next() * gold.blocks.length)
      ] as Attempt["gold"]["blocks"][number];
      if (roll < 0.45) {
        const shift = Math.floor(next() * 5) - 2;
        blocks.push({
          path: target.path,
          startLine: Math.max(1, target.startLine + shift),
          endLine: Math.max(1, target.endLine + shift),
        });
      } else if (roll < 0.8) blocks.push(range(pick(), next, 2 + Math.floor(next() * 20)));
      else if (roll < 0.92) {
        const file = pick();
        blocks.push({ path: file.path, symbol: symbolOf(file, Math.floor(next() * 1000)) });
      } else if (roll < 0.96) blocks.push({ path: pick().path });
      else blocks.push({ path: "no/such/File.java", startLine: 1, endLine: 3 });
    }
    // Every file is touched by some diagnosis.
    for (let f = a; f < files.length; f += count)
      blocks.push(range(files[f] as GeneratedFile, next, 5));
    list.push({
      gold,
      diagnosis: { format: "distdebug.diagnosis/1", incidentId: gold.incidentId, blocks },
    });
  }
  return list;
}
