import { type GitEngine, openReader } from "../engine.js";
import type { ObjectReader, RawObject } from "./object-reader.js";

/**
 * A reader let go by its last user is kept this long for the next one (rescoring opens a
 * revision per incident, and several per repository), then closed. Idle, it never keeps the
 * process alive.
 */
const IDLE_MS = 60_000;

interface PoolEntry {
  reader: Promise<ObjectReader>;
  /** The reader once started (to see at once whether it broke). */
  started: ObjectReader | undefined;
  users: number;
  idle: NodeJS.Timeout | undefined;
}

/** The object readers of this process by engine and git folder. */
const pool = new Map<string, PoolEntry>();

/** Takes a reader on `gitdir` from the pool (started when none is, or the kept one broke). */
function acquire(gitdir: string, engine: GitEngine): PoolEntry {
  const key = `${engine}\0${gitdir}`;
  let entry = pool.get(key);
  // A reader whose process failed stays failed: the next user gets a new one.
  if (entry?.started?.broken) {
    pool.delete(key);
    entry = undefined;
  }
  if (!entry) {
    const created: PoolEntry = {
      reader: openReader(gitdir, engine),
      started: undefined,
      users: 0,
      idle: undefined,
    };
    created.reader.then(
      (reader) => {
        created.started = reader;
      },
      () => pool.get(key) === created && pool.delete(key),
    );
    pool.set(key, created);
    entry = created;
  }
  clearTimeout(entry.idle);
  entry.idle = undefined;
  entry.users += 1;
  return entry;
}

/** Lets go of a reader: the last user's release closes it after {@link IDLE_MS} idle. */
function release(gitdir: string, engine: GitEngine, entry: PoolEntry): void {
  entry.users -= 1;
  if (entry.users > 0) return;
  const key = `${engine}\0${gitdir}`;
  const close = () => {
    if (pool.get(key) === entry) pool.delete(key);
    void entry.reader.then((reader) => reader.close()).catch(() => undefined);
  };
  if (pool.get(key) !== entry) {
    close();
    return;
  }
  entry.idle = setTimeout(close, IDLE_MS).unref();
}

/**
 * An object reader on `gitdir` shared by every user of the process (one `git cat-file` per
 * repository, not one per revision opened): reads hold it, `close` lets go of it (closed a
 * minute after its last user lets go), and a read after `close` takes it again. The objects
 * are git's, addressed by id, so users of one repository cannot see each other's reads.
 */
export async function sharedReader(
  gitdir: string,
  engine: GitEngine = "auto",
): Promise<ObjectReader> {
  let held: PoolEntry | undefined = acquire(gitdir, engine);
  const first = await held.reader;
  const take = () => {
    held ??= acquire(gitdir, engine);
    return held.reader;
  };
  return {
    engine: first.engine,
    get broken() {
      return false;
    },
    async resolve(revision: string): Promise<string> {
      return (await take()).resolve(revision);
    },
    async readMany(oids: readonly string[]): Promise<RawObject[]> {
      return (await take()).readMany(oids);
    },
    async close(): Promise<void> {
      const letting = held;
      held = undefined;
      if (letting) release(gitdir, engine, letting);
    },
  };
}
