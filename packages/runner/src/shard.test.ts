import { describe, expect, it } from "vitest";
import { checkShard, incidentsOfShard, parseShard, shardOf } from "./shard.js";

const ids = Array.from({ length: 1000 }, (_, index) => ({ id: `system${index % 7}-${index}` }));

describe("shardOf", () => {
  it("puts every incident in exactly one shard, whatever the count", () => {
    for (const count of [1, 2, 3, 5, 8, 16]) {
      const seen = new Map<string, number>();
      for (let index = 1; index <= count; index++) {
        for (const incident of incidentsOfShard(ids, { index, count })) {
          expect(seen.has(incident.id)).toBe(false);
          seen.set(incident.id, index);
        }
      }
      expect(seen.size).toBe(ids.length);
    }
  });

  it("is deterministic and independent of the other incidents and their order", () => {
    const reversed = [...ids].reverse();
    const withMore = [...ids, ...Array.from({ length: 50 }, (_, i) => ({ id: `new-${i}` }))];
    for (let index = 1; index <= 4; index++) {
      const shard = { index, count: 4 };
      const base = incidentsOfShard(ids, shard).map((incident) => incident.id);
      expect(
        incidentsOfShard(reversed, shard)
          .map((incident) => incident.id)
          .reverse(),
      ).toEqual(base);
      expect(
        incidentsOfShard(withMore, shard)
          .map((incident) => incident.id)
          .filter((id) => !id.startsWith("new-")),
      ).toEqual(base);
    }
    expect(shardOf("zookeeper-2845", 4)).toBe(shardOf("zookeeper-2845", 4));
  });

  it("moves only the incidents the new shard wins when a shard is added", () => {
    for (const count of [2, 4, 8]) {
      let moved = 0;
      for (const { id } of ids) {
        const before = shardOf(id, count);
        const after = shardOf(id, count + 1);
        if (before !== after) {
          // Rendezvous hashing: an incident only ever moves to the new shard.
          expect(after).toBe(count + 1);
          moved += 1;
        }
      }
      // The new shard takes about 1/(count+1) of the incidents: far less than half.
      expect(moved).toBeGreaterThan(0);
      expect(moved / ids.length).toBeLessThan(2 / (count + 1));
    }
  });

  it("spreads incidents over every shard", () => {
    const count = 8;
    const sizes = Array.from({ length: count }, () => 0);
    for (const { id } of ids) sizes[shardOf(id, count) - 1]! += 1;
    for (const size of sizes) expect(size).toBeGreaterThan(ids.length / count / 2);
  });
});

describe("parseShard", () => {
  it("reads i/n with 1 <= i <= n", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 1 / 1 ")).toEqual({ index: 1, count: 1 });
  });

  it("refuses anything else with a message naming the value", () => {
    for (const text of ["0/4", "5/4", "2", "a/b", "2/0", "-1/3", "1.5/3"]) {
      expect(() => parseShard(text)).toThrow(/shard/);
    }
    expect(() => checkShard({ index: 3, count: 2 })).toThrow(/1\.\.2, found 3/);
  });
});
