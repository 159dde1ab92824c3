import { DistDebugError } from "@distdebug/schema";

/** Throws `ABORTED` when the signal is aborted. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new DistDebugError({
      code: "ABORTED",
      message: "scoring was interrupted",
      cause: signal.reason,
    });
}

/** Units of work (spans, atoms) between two looks at the event loop. */
const WORK_PER_PAUSE = 1 << 18;

async function pause(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  checkAborted(signal);
}

/**
 * Paces a long scoring loop: after each step, `pace(work)` returns a pause to await once
 * enough work was done (undefined before, so most steps do not suspend the loop). The pause
 * lets the event loop run (signal handlers, timers), then throws `ABORTED` when the signal is
 * aborted. Scoring awaits only cached promises, which never leave the microtask queue: without
 * this a long scoring pass would not even see a SIGTERM.
 *
 * @example
 * ```ts
 * const pace = pacer(signal);
 * for (const span of spans) {
 *   work(span);
 *   const pausing = pace(1 + span.atoms.length);
 *   if (pausing) await pausing;
 * }
 * ```
 */
export function pacer(
  signal: AbortSignal | undefined,
): (work: number) => Promise<void> | undefined {
  let done = 0;
  return (work) => {
    done += work;
    if (done < WORK_PER_PAUSE) return undefined;
    done = 0;
    return pause(signal);
  };
}
