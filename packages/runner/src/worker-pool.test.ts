import { describe, expect, it } from "vitest";
import { runPool } from "./worker-pool.js";

/** A promise with its resolve and reject, to end a piece of work when the test says. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("runPool", () => {
  it("starts items in order, at most `concurrency` at once, the next when one ends", async () => {
    const gates = [1, 2, 3, 4, 5].map(() => deferred());
    const started: number[] = [];
    const done = runPool([0, 1, 2, 3, 4], { concurrency: 2 }, async (item) => {
      started.push(item);
      await gates[item]!.promise;
    });
    await settle();
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    await done;
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it("starts nothing new after an abort, and lets started items end", async () => {
    const controller = new AbortController();
    const gate = deferred();
    const ended: number[] = [];
    const done = runPool([0, 1, 2], { concurrency: 1, signal: controller.signal }, async (item) => {
      await gate.promise;
      ended.push(item);
    });
    await settle();
    controller.abort();
    gate.resolve();
    await done;
    expect(ended).toEqual([0]);
  });

  it("rejects with the first failure and takes no further item", async () => {
    const started: number[] = [];
    const failure = runPool([0, 1, 2, 3], { concurrency: 1 }, async (item) => {
      started.push(item);
      if (item === 1) throw new Error("attempt 1 broke");
    });
    await expect(failure).rejects.toThrow("attempt 1 broke");
    expect(started).toEqual([0, 1]);
  });

  it("runs one worker for an empty list or a concurrency below 1, and resolves", async () => {
    await expect(runPool([], { concurrency: 4 }, async () => {})).resolves.toBeUndefined();
    const seen: string[] = [];
    await runPool(["a", "b"], { concurrency: 0 }, async (item) => {
      seen.push(item);
    });
    expect(seen).toEqual(["a", "b"]);
  });
});
