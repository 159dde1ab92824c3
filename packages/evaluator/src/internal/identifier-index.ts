import type { ReadFile } from "../directory-reader.js";
import { type LanguageChoice, languageOf } from "../languages.js";
import { checkAborted } from "./abort.js";
import { decodeSource, detach } from "./text.js";

/** Files read at once while indexing. */
const PARALLEL_READS = 16;

/** An identifier as the indexed text and the queries are cut into (the same rule for both). */
const IDENTIFIER = /[\p{ID_Start}_$][\p{ID_Continue}$]*/gu;

/** The identifiers of a text, in order (repeats included). */
export function identifiersOf(text: string): string[] {
  return text.match(IDENTIFIER) ?? [];
}

/**
 * The textual prefilter of a bare symbol's lookup: which listed source files (in a language
 * the evaluator parses) hold a given identifier anywhere in their text. Built on first use by
 * reading every listed source file once (never parsing), then kept for the revision: per
 * identifier, the numbers of the files holding it. A file that holds no definition's name
 * cannot hold the definition, so only the files it returns need a parse, each at most once
 * (the file store caches parses).
 */
export class IdentifierIndex {
  readonly #readFile: ReadFile;
  readonly #languages: Readonly<Record<string, LanguageChoice>>;
  readonly #listFiles: () => Promise<string[]>;
  #built:
    | Promise<{ paths: string[]; postings: Map<string, number[]>; complete: boolean }>
    | undefined;

  constructor(
    readFile: ReadFile,
    languages: Readonly<Record<string, LanguageChoice>>,
    listFiles: () => Promise<string[]>,
  ) {
    this.#readFile = readFile;
    this.#languages = languages;
    this.#listFiles = listFiles;
  }

  /**
   * The listed source files holding `identifier` (sorted), or every listed source file for
   * `undefined` (a name without an identifier character can be no file's prefilter).
   */
  async filesWith(identifier: string | undefined, signal?: AbortSignal): Promise<string[]> {
    const pending = this.#build(signal);
    const built = await pending.catch((error: unknown) => {
      if (this.#built === pending) this.#built = undefined;
      throw error;
    });
    // An index with a failed read is built again next time.
    if (!built.complete && this.#built === pending) this.#built = undefined;
    if (identifier === undefined) return built.paths;
    return (built.postings.get(identifier) ?? []).map((number) => built.paths[number] as string);
  }

  #build(signal: AbortSignal | undefined) {
    this.#built ??= this.#listFiles().then((files) => this.#index(files, signal));
    return this.#built;
  }

  async #index(files: readonly string[], signal: AbortSignal | undefined) {
    const paths = [...new Set(files)]
      .filter((path) => languageOf(path, this.#languages) !== "text")
      .sort();
    const postings = new Map<string, number[]>();
    let complete = true;
    for (let at = 0; at < paths.length; at += PARALLEL_READS) {
      checkAborted(signal);
      const contents = await Promise.all(
        paths.slice(at, at + PARALLEL_READS).map((path) => this.#read(path)),
      );
      contents.forEach((content, offset) => {
        if (content === null) complete = false;
        if (content === undefined || content === null) return;
        for (const identifier of new Set(identifiersOf(decodeSource(content).text))) {
          const list = postings.get(identifier);
          // A key of its own: a slice of the text would keep the whole file in memory.
          if (list) list.push(at + offset);
          else postings.set(detach(identifier), [at + offset]);
        }
      });
    }
    return { paths, postings, complete };
  }

  /** A file's content; `null` when the read threw (the index is then not kept). */
  async #read(path: string): Promise<string | Uint8Array | undefined | null> {
    try {
      return await this.#readFile(path);
    } catch {
      return null;
    }
  }
}
