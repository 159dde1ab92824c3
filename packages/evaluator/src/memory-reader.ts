import type { ReadFile } from "./directory-reader.js";

/**
 * A {@link ReadFile} over an in-memory map of repository paths to contents (tests, tools that
 * hold a git tree in memory). Unknown paths give `undefined`.
 *
 * @example
 * ```ts
 * const evaluator = createEvaluator({ readFile: memoryReader({ "src/raft.go": text }) });
 * ```
 */
export function memoryReader(files: Readonly<Record<string, string | Uint8Array>>): ReadFile {
  const map = new Map(Object.entries(files));
  return async (path) => map.get(path);
}
