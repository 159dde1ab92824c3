import { killAll, type UidMemory, uidMemory, uidsMemory } from "./uid-memory.js";

/** How often the sampled memory budgets sum their uids' memory. */
export const MEMORY_SAMPLE_MS = 250;

/** One uid watched against a budget; see {@link watchUidMemory}. */
export interface UidMemoryWatch {
  /** Processes killed because the uid's memory went past the budget. */
  kills(): number;
  /** Stops watching; later calls do nothing. */
  stop(): void;
}

interface Watch {
  uid: number;
  bytes: number;
  kills: number;
}

const watches = new Set<Watch>();
let timer: NodeJS.Timeout | undefined;

/**
 * Watches a uid's memory against `bytes`: every {@link MEMORY_SAMPLE_MS} ms one pass over
 * `/proc` sums the memory of every watched uid (one pass for all the budgets of this process);
 * a uid over its budget has all its processes killed (those forked meanwhile too, in a few
 * rounds).
 */
export function watchUidMemory(uid: number, bytes: number): UidMemoryWatch {
  const watch: Watch = { uid, bytes, kills: 0 };
  watches.add(watch);
  timer ??= setTimeout(sample, MEMORY_SAMPLE_MS).unref();
  return {
    kills: () => watch.kills,
    stop: () => {
      watches.delete(watch);
    },
  };
}

function sample(): void {
  const usage = uidsMemory(new Set([...watches].map((watch) => watch.uid)));
  for (const watch of watches) enforce(watch, usage.get(watch.uid));
  timer = watches.size > 0 ? setTimeout(sample, MEMORY_SAMPLE_MS).unref() : undefined;
}

function enforce(watch: Watch, first: UidMemory | undefined): void {
  let usage = first;
  for (
    let round = 0;
    usage && usage.bytes > watch.bytes && usage.pids.length > 0 && round < 10;
    round++
  ) {
    killAll(usage.pids);
    watch.kills += usage.pids.length;
    usage = uidMemory(watch.uid);
  }
}
