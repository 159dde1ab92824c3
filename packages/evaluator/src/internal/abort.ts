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

/**
 * Paces a long scoring loop: `await pace(work)` after each step lets the event loop run
 * (signal handlers, timers) once enough work was done, then throws `ABORTED` when the signal
 * is aborted. Scoring awaits only cached promises, which never leave the microtask queue:
 * without this a long scoring pass would not even see a SIGTERM.
 */
export function pacer(signal: AbortSignal | undefined): (work: number) => Promise<void> {
  let done = 0;
  return async (work) => {
    done += work;
    if (done < WORK_PER_PAUSE) return;
    done = 0;
    await new Promise<void>((resolve) => setImmediate(resolve));
    checkAborted(signal);
  };
}
