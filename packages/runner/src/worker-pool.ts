/** Options of {@link runPool}. */
export interface RunPoolOptions {
  /** Items worked on at once; at least 1. */
  concurrency: number;
  /** On abort no new item starts; those started run to their end. */
  signal?: AbortSignal | undefined;
}

/**
 * Works through `items` in order with at most `concurrency` at once: each worker takes the
 * next item when its previous one ends. Resolves when every started item has ended, and
 * rejects with the first rejection of `work` (after which no worker takes another item; those
 * already started go on).
 *
 * @example
 * ```ts
 * await runPool(jobs, { concurrency: 4, signal }, (job) => runOne(job));
 * ```
 */
export async function runPool<T>(
  items: readonly T[],
  options: RunPoolOptions,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && !options.signal?.aborted && next < items.length) {
      await work(items[next++] as T).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  const workers = Math.min(Math.max(1, options.concurrency), Math.max(1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
}
