import type { ReadFile } from "../directory-reader.js";
import { type LanguageChoice, languageOf } from "../languages.js";
import { checkAborted } from "./abort.js";
import { nonBlankLines } from "./text.js";

/** R and the files counted in it. */
export interface RepositorySize {
  rows: number;
  files: number;
}

/**
 * Counts the non-blank rows of listed files by their content (shared across the process and
 * cached, see `RowCounts`), in the order given; `null` for a path it has no content key for,
 * which the counter then reads and counts itself.
 */
export type CountRows = (paths: readonly string[]) => Promise<readonly (number | null)[]>;

/** Files read at once while counting. */
const PARALLEL_READS = 16;

/**
 * Counts a repository's size R: the non-blank lines of its files whose extension maps to a
 * language of the evaluator, read without parsing. Each path is counted once; a read that
 * throws is counted again the next time (and the total is not kept).
 */
export class RepositoryCounter {
  readonly #readFile: ReadFile;
  readonly #languages: Readonly<Record<string, LanguageChoice>>;
  readonly #countRows: CountRows | undefined;
  readonly #rows = new Map<string, number | undefined>();

  constructor(
    readFile: ReadFile,
    languages: Readonly<Record<string, LanguageChoice>>,
    countRows?: CountRows,
  ) {
    this.#readFile = readFile;
    this.#languages = languages;
    this.#countRows = countRows;
  }

  /**
   * Asks `countRows` for the paths not counted yet, in one request. A path it has no count
   * for, or every path when it fails, is read and counted one by one instead.
   */
  async #countByContent(paths: readonly string[]): Promise<void> {
    if (!this.#countRows) return;
    const todo = paths.filter(
      (path) => !this.#rows.has(path) && languageOf(path, this.#languages) !== "text",
    );
    if (todo.length === 0) return;
    const counts = await this.#countRows(todo).catch(() => []);
    todo.forEach((path, at) => {
      const rows = counts[at];
      if (typeof rows === "number") this.#rows.set(path, rows);
    });
  }

  /** Non-blank lines of one path (undefined: missing, or not in a language). */
  async #count(path: string): Promise<{ rows: number | undefined; failed: boolean }> {
    if (this.#rows.has(path)) return { rows: this.#rows.get(path), failed: false };
    if (languageOf(path, this.#languages) === "text") return { rows: undefined, failed: false };
    let content: string | Uint8Array | undefined;
    try {
      content = await this.#readFile(path);
    } catch {
      return { rows: undefined, failed: true };
    }
    const rows = content === undefined ? undefined : nonBlankLines(content);
    this.#rows.set(path, rows);
    return { rows, failed: false };
  }

  /**
   * The size of the repository made of `paths` (sorted and deduplicated by the caller or
   * not: each path counts once). `complete` is false when a read failed.
   */
  async total(
    paths: readonly string[],
    signal?: AbortSignal,
  ): Promise<RepositorySize & { complete: boolean }> {
    const unique = [...new Set(paths)];
    await this.#countByContent(unique);
    let rows = 0;
    let files = 0;
    let complete = true;
    for (let at = 0; at < unique.length; at += PARALLEL_READS) {
      checkAborted(signal);
      const counts = await Promise.all(
        unique.slice(at, at + PARALLEL_READS).map((path) => this.#count(path)),
      );
      for (const count of counts) {
        if (count.failed) complete = false;
        if (count.rows === undefined) continue;
        rows += count.rows;
        files++;
      }
    }
    return { rows, files, complete };
  }
}
