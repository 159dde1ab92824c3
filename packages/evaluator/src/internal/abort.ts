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

/**
 * Lets the event loop run (signal handlers, timers), then throws `ABORTED` when the signal is
 * aborted. Scoring awaits only cached promises, which never leave the microtask queue: without
 * this a long scoring pass would not even see a SIGTERM.
 */
export async function pause(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  checkAborted(signal);
}
