import { createHash } from "node:crypto";
import { errorMessage } from "@distdebug/schema";
import type { ReadFile } from "../directory-reader.js";
import { type LanguageChoice, languageOf } from "../languages.js";
import { normalizeRepoPath } from "../paths.js";
import { buildSyntaxIndex, buildTextIndex, type FileIndex } from "./build-index.js";
import { SymbolTable } from "./symbols.js";
import { decodeSource } from "./text.js";

/** A file read at the buggy revision, with its number in this evaluator (for atom keys). */
export interface LoadedFile {
  path: string;
  number: number;
  index: FileIndex;
}

/** How a written path resolved. */
export type PathResolution =
  | { status: "file"; file: LoadedFile }
  | { status: "outside"; path: string }
  | { status: "missing"; path: string; message?: string };

/** 2^24: atom ids and line numbers stay below it in a key `file * 2^24 + id`. */
export const KEY_SCALE = 16_777_216;

interface Cached {
  index: FileIndex;
}

/**
 * Reads, decodes, parses and caches files (parsed once per evaluator, by content hash). The
 * revision is pristine: a path is read once per evaluator; a read that failed (the reader threw)
 * is tried again in the next scoring pass.
 */
export class FileStore {
  readonly #readFile: ReadFile;
  readonly #languages: Readonly<Record<string, LanguageChoice>>;
  readonly #roots: readonly string[];
  readonly #byHash = new Map<string, Cached>();
  readonly #numbers = new Map<string, number>();
  /** Paths read, found or not. */
  readonly #loaded = new Map<string, Promise<PathResolution>>();
  /** The reads of one scoring pass, failed ones included (a path is read once per `score`). */
  #pass = new Map<string, Promise<PathResolution>>();

  constructor(
    readFile: ReadFile,
    languages: Readonly<Record<string, LanguageChoice>>,
    roots: readonly string[],
  ) {
    this.#readFile = readFile;
    this.#languages = languages;
    this.#roots = roots;
  }

  /** Starts a new scoring pass: reads that failed are tried again. */
  beginPass(): void {
    this.#pass = new Map();
  }

  numberOf(path: string): number {
    let number = this.#numbers.get(path);
    if (number === undefined) {
      number = this.#numbers.size;
      this.#numbers.set(path, number);
    }
    return number;
  }

  /** Resolves a path as written (normalizing it) to a loaded file. */
  async resolve(raw: string): Promise<PathResolution> {
    const normalized = normalizeRepoPath(raw, { roots: this.#roots });
    if (normalized.outside) return { status: "outside", path: normalized.path };
    let first: PathResolution | undefined;
    for (const candidate of normalized.candidates) {
      const result = await this.load(candidate);
      if (result.status === "file") return result;
      first ??= result;
    }
    return first ?? { status: "missing", path: raw };
  }

  /** Loads a repository-relative path (already normalized). */
  load(path: string): Promise<PathResolution> {
    const known = this.#loaded.get(path) ?? this.#pass.get(path);
    if (known) return known;
    const pending = this.#loadNow(path);
    this.#pass.set(path, pending);
    this.#loaded.set(path, pending);
    // A failed read is tried again in a later pass.
    pending.then(
      (result) => {
        if (result.status === "missing" && result.message !== undefined) this.#loaded.delete(path);
      },
      () => this.#loaded.delete(path),
    );
    return pending;
  }

  async #loadNow(path: string): Promise<PathResolution> {
    let content: string | Uint8Array | undefined;
    try {
      content = await this.#readFile(path);
    } catch (error) {
      const message = errorMessage(error);
      return { status: "missing", path, message };
    }
    if (content === undefined) return { status: "missing", path };
    const language = languageOf(path, this.#languages);
    const hash = createHash("sha1").update(language).update("\0").update(content).digest("hex");
    let cached = this.#byHash.get(hash);
    if (!cached) {
      const source = decodeSource(content);
      const index =
        language === "text" ? buildTextIndex(source) : buildSyntaxIndex(source, language);
      cached = { index };
      this.#byHash.set(hash, cached);
    }
    return {
      status: "file",
      file: { path, number: this.numberOf(path), index: cached.index },
    };
  }

  /** The symbol table of a loaded file (made on first use, then cached). */
  symbolsOf(file: LoadedFile): SymbolTable | undefined {
    const index = file.index;
    if (index.language === "text" || index.status !== "parsed") return undefined;
    let byPath = symbolMemo.get(index);
    if (!byPath) {
      byPath = new Map();
      symbolMemo.set(index, byPath);
    }
    let symbols = byPath.get(file.path);
    if (!symbols) {
      // Python and Rust module names come from the path, so the memo is per path too.
      symbols = new SymbolTable(index.language, file.path, index.definitions);
      byPath.set(file.path, symbols);
    }
    return symbols;
  }
}

const symbolMemo = new WeakMap<FileIndex, Map<string, SymbolTable>>();
