import { createHash } from "node:crypto";
import { appendFile, mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { readFileIfExists, writeFileAtomic } from "@distdebug/schema";
import { nonBlankLines } from "./text.js";

/**
 * The version of the counting rule ({@link nonBlankLines} on the bytes a content key names).
 * Bump it whenever that rule changes: counts stored under another version are never read.
 */
export const ROW_COUNT_RULE = "non-blank-lines-1";

/** Reads the bytes of content keys, in one batch, only to count them. */
export type ReadContents = (keys: readonly string[]) => Promise<ReadonlyMap<string, Uint8Array>>;

/** Keys read at once while counting (one batch: one pipelined `git cat-file --batch` write). */
const BATCH = 256;
/** A shard larger than this is not read (it is no file this cache wrote). */
const MAX_SHARD_BYTES = 64 * 1024 * 1024;
/** `<key> <rows> <check>`: a git object id (40 or 64 hex digits), an optional `:variant`. */
const ENTRY = /^([0-9a-f]{40}(?:[0-9a-f]{24})?(?::[a-z0-9-]{1,32})?) (\d{1,12}) ([0-9a-f]{16})$/;

/** A content key the cache stores: a git object id with an optional `:variant`. */
export function isContentKey(key: string): boolean {
  return ENTRY.test(`${key} 0 0000000000000000`);
}

/** The check of one stored entry: a corrupt, truncated or hand-edited line does not match it. */
export function entryCheck(key: string, rows: number): string {
  return createHash("sha256")
    .update(`${ROW_COUNT_RULE}\0${key}\0${rows}`)
    .digest("hex")
    .slice(0, 16);
}

/** The shard file of a key: its first hex digit (16 files). */
function shardOf(key: string): number {
  return Number.parseInt(key.charAt(0), 16);
}

/** The entries of a shard file that pass their check; the others are dropped (recounted). */
function parseShard(text: string): { entries: Map<string, number>; rejected: number } {
  const entries = new Map<string, number>();
  let rejected = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const match = ENTRY.exec(line);
    const rows = match ? Number(match[2]) : Number.NaN;
    if (match && Number.isSafeInteger(rows) && match[3] === entryCheck(match[1] as string, rows))
      entries.set(match[1] as string, rows);
    else rejected += 1;
  }
  return { entries, rejected };
}

/** What one call of {@link RowCounts.count} did (for tests and benches). */
export interface RowCountStats {
  /** Keys answered from memory or the disk cache. */
  cached: number;
  /** Keys read and counted. */
  counted: number;
  /** Stored entries dropped because their check failed (corrupt, truncated or edited). */
  rejected: number;
}

/**
 * Row counts by content key (a git blob id, with a variant when a checkout changes the bytes):
 * a pure function of the bytes the key names, so one count serves every incident and attempt
 * of the process, and, with a folder, every later process. The folder holds one file per
 * shard under `ROW_COUNT_RULE`, one line per key with a check; a line whose check fails is
 * dropped and its key counted again, and new counts are appended as whole lines. It is the
 * scorer's own cache of ids git computed from content: nothing a submitter sends goes in.
 */
export class RowCounts {
  readonly #dir: string | undefined;
  readonly #memory: Map<string, number>;
  /** Shards read from the folder (once per process). */
  readonly #loaded = new Map<number, Promise<void>>();
  /** Shards too large to read: replaced by the next write instead of appended to. */
  readonly #oversized = new Set<number>();
  #rejected = 0;

  constructor(dir: string | undefined, memory: Map<string, number>) {
    this.#dir = dir === undefined ? undefined : join(dir, ROW_COUNT_RULE);
    this.#memory = memory;
  }

  /** The rows of every key; keys not known yet are read in batches through `read` and counted. */
  async count(
    keys: readonly string[],
    read: ReadContents,
  ): Promise<{ rows: Map<string, number>; stats: RowCountStats }> {
    const rejectedBefore = this.#rejected;
    const unique = await this.#loadFor(keys);
    const missing = unique.filter((key) => !this.#memory.has(key));
    const fresh = new Map<string, number>();
    for (let at = 0; at < missing.length; at += BATCH) {
      const batch = missing.slice(at, at + BATCH);
      const contents = await read(batch);
      for (const key of batch) {
        const content = contents.get(key);
        if (content === undefined) continue;
        const rows = nonBlankLines(content);
        fresh.set(key, rows);
        this.#memory.set(key, rows);
      }
    }
    if (fresh.size > 0) await this.#persist(fresh);
    return {
      rows: this.#inMemory(unique),
      stats: {
        cached: unique.length - missing.length,
        counted: fresh.size,
        rejected: this.#rejected - rejectedBefore,
      },
    };
  }

  /**
   * The counts known for `keys` (in memory or in the folder, every stored line checked),
   * without reading or counting anything: for counts kept by {@link RowCounts.keep}.
   */
  async known(keys: readonly string[]): Promise<Map<string, number>> {
    return this.#inMemory(await this.#loadFor(keys));
  }

  /**
   * Keeps counts the caller worked out from the content its keys name (a whole tree's R,
   * keyed by the tree's id): in memory and appended to the folder as checked lines.
   */
  async keep(counts: ReadonlyMap<string, number>): Promise<void> {
    const fresh = new Map(
      [...counts].filter(([key, rows]) => isContentKey(key) && Number.isSafeInteger(rows)),
    );
    for (const [key, rows] of fresh) this.#memory.set(key, rows);
    if (fresh.size > 0) await this.#persist(fresh);
  }

  /** Stored entries dropped so far because their check failed (for tests and benches). */
  get rejected(): number {
    return this.#rejected;
  }

  /** The distinct content keys among `keys`, with their shards read into memory. */
  async #loadFor(keys: readonly string[]): Promise<string[]> {
    const unique = [...new Set(keys)].filter(isContentKey);
    await Promise.all([...new Set(unique.map(shardOf))].map((shard) => this.#load(shard)));
    return unique;
  }

  /** The counts held in memory for `keys`. */
  #inMemory(keys: readonly string[]): Map<string, number> {
    const rows = new Map<string, number>();
    for (const key of keys) {
      const known = this.#memory.get(key);
      if (known !== undefined) rows.set(key, known);
    }
    return rows;
  }

  #shardPath(shard: number): string {
    return join(this.#dir as string, `${shard.toString(16)}.rows`);
  }

  /** Reads one shard's good entries into memory (once); an unreadable shard counts as empty. */
  #load(shard: number): Promise<void> {
    if (this.#dir === undefined) return Promise.resolve();
    let loading = this.#loaded.get(shard);
    if (!loading) {
      loading = this.#readShard(shard).then(({ entries, rejected }) => {
        this.#rejected += rejected;
        for (const [key, rows] of entries) if (!this.#memory.has(key)) this.#memory.set(key, rows);
      });
      this.#loaded.set(shard, loading);
    }
    return loading;
  }

  async #readShard(shard: number): Promise<{ entries: Map<string, number>; rejected: number }> {
    const path = this.#shardPath(shard);
    try {
      const size = (await stat(path).catch(() => undefined))?.size ?? 0;
      if (size > MAX_SHARD_BYTES) {
        this.#oversized.add(shard);
        return { entries: new Map(), rejected: 1 };
      }
      const bytes = await readFileIfExists(path);
      return bytes ? parseShard(bytes.toString("latin1")) : { entries: new Map(), rejected: 0 };
    } catch {
      return { entries: new Map(), rejected: 0 };
    }
  }

  /**
   * Appends fresh counts to their shards, one `appendFile` of whole lines per shard (no file
   * is rewritten, so nothing another process appended is lost). A write cut short leaves a
   * partial last line whose check fails, so it is counted again; a cache that cannot be
   * written is only slower next time.
   */
  async #persist(fresh: ReadonlyMap<string, number>): Promise<void> {
    if (this.#dir === undefined) return;
    const byShard = new Map<number, string[]>();
    for (const [key, rows] of fresh) {
      const shard = shardOf(key);
      const line = `${key} ${rows} ${entryCheck(key, rows)}\n`;
      const lines = byShard.get(shard);
      if (lines) lines.push(line);
      else byShard.set(shard, [line]);
    }
    try {
      await mkdir(this.#dir, { recursive: true });
      for (const [shard, lines] of byShard) {
        const path = this.#shardPath(shard);
        if (this.#oversized.delete(shard)) await writeFileAtomic(path, lines.join(""));
        // A line of its own: a torn earlier write must not glue onto this one.
        else await appendFile(path, `\n${lines.join("")}`);
      }
    } catch {
      // Best effort: the counts stay in memory and are counted again by a later process.
    }
  }
}

/** The counts of this process, shared by every folder's cache (a key names the same bytes). */
const processCounts = new Map<string, number>();
const byFolder = new Map<string, RowCounts>();
let memoryOnly: RowCounts | undefined;

/**
 * The row counts of this process over the cache folder `dir` (undefined: memory only). Every
 * scorer of the process shares the counts in memory.
 */
export function rowCountsIn(dir: string | undefined): RowCounts {
  if (dir === undefined) {
    memoryOnly ??= new RowCounts(undefined, processCounts);
    return memoryOnly;
  }
  let counts = byFolder.get(dir);
  if (!counts) {
    counts = new RowCounts(dir, processCounts);
    byFolder.set(dir, counts);
  }
  return counts;
}
