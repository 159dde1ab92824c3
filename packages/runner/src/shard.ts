import { createHash } from "node:crypto";
import { DistDebugError, type ShardScheduler } from "@distdebug/schema";

/** One shard of a run: `index` of `count`, 1-based (`--shard 2/4`). */
export interface Shard {
  /** 1-based shard number, at most `count`. */
  index: number;
  /** How many shards the run is split into. */
  count: number;
  /** The scheduler whose environment assigned `index` (run.json records it); absent when flags named it. */
  scheduler?: ShardScheduler | undefined;
}

function weight(incidentId: string, shardIndex: number): bigint {
  const digest = createHash("sha256").update(`${incidentId}\u0000${shardIndex}`).digest();
  return digest.readBigUInt64BE(0);
}

/**
 * The shard an incident belongs to, out of `count` shards (1-based).
 *
 * Rendezvous hashing of the incident id: every shard number gets a hash-derived weight for
 * the id and the highest wins. The answer depends only on the id and `count`, never on the
 * incident's position or on which other incidents exist, so adding incidents moves none of
 * the others, and going from `n` to `n + 1` shards moves only the incidents the new shard
 * wins (about `1 / (n + 1)` of them). All attempts of an incident share its shard, so one
 * shard prepares each repository and base workspace once.
 *
 * @example
 * ```ts
 * shardOf("zookeeper-2845", 4); // always the same number in 1..4
 * ```
 */
export function shardOf(incidentId: string, count: number): number {
  let best = 1;
  let bestWeight = -1n;
  for (let index = 1; index <= count; index++) {
    const current = weight(incidentId, index);
    if (current > bestWeight) {
      best = index;
      bestWeight = current;
    }
  }
  return best;
}

/** The incidents of one shard, in their given order. */
export function incidentsOfShard<T extends { id: string }>(
  incidents: readonly T[],
  shard: Shard,
): T[] {
  return incidents.filter((incident) => shardOf(incident.id, shard.count) === shard.index);
}

function invalid(message: string, data: Record<string, unknown>): DistDebugError {
  return new DistDebugError({ code: "INVALID_ARGUMENT", message, data });
}

/**
 * Checks a shard's numbers: integers with `1 <= index <= count`.
 * @throws DistDebugError `INVALID_ARGUMENT` naming the values.
 */
export function checkShard(shard: Shard): Shard {
  const { index, count } = shard;
  if (!Number.isSafeInteger(count) || count < 1)
    throw invalid(`the shard count must be a whole number >= 1, found ${count}`, { count });
  if (!Number.isSafeInteger(index) || index < 1 || index > count)
    throw invalid(`the shard index must be a whole number in 1..${count}, found ${index}`, {
      index,
      count,
    });
  return shard;
}

/**
 * Parses `i/n` (1-based), as `--shard 2/4` gives it.
 * @throws DistDebugError `INVALID_ARGUMENT` for anything else.
 * @example
 * ```ts
 * parseShard("2/4"); // { index: 2, count: 4 }
 * ```
 */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match)
    throw invalid(`a shard is written i/n with 1 <= i <= n (for example 2/4), found "${text}"`, {
      text,
    });
  return checkShard({ index: Number(match[1]), count: Number(match[2]) });
}
